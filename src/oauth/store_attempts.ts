/** Failed owner-secret attempts, counted per client and per address in a fixed window. */

import { commitWithRetry, retryLocked } from "../kit/kv.ts";
import { attemptsKey, type AttemptsRecord } from "./store_keys.ts";

/** Whose attempts are counted. */
export interface AttemptScopes {
  clientId: string;
  address: string;
}

function keysOf(scopes: AttemptScopes): Deno.KvKey[] {
  return [attemptsKey("client", scopes.clientId), attemptsKey("address", scopes.address)];
}

/** True when the client or the address has used up its failed attempts in the current window. */
export async function attemptsExhausted(
  kv: Deno.Kv,
  scopes: AttemptScopes,
  max: number,
  now: number,
): Promise<boolean> {
  const entries = await retryLocked(() => kv.getMany<AttemptsRecord[]>(keysOf(scopes)));
  return entries.some((e) => e.value !== null && e.value.windowEnds > now && e.value.count >= max);
}

/** Counts one failed attempt against both the client and the address. */
export async function recordFailedAttempt(
  kv: Deno.Kv,
  scopes: AttemptScopes,
  windowMs: number,
  now: number,
): Promise<void> {
  await commitWithRetry(async () => {
    const entries = await retryLocked(() => kv.getMany<AttemptsRecord[]>(keysOf(scopes)));
    const op = kv.atomic();
    for (const entry of entries) {
      const live = entry.value !== null && entry.value.windowEnds > now;
      const next: AttemptsRecord = live
        ? { count: entry.value!.count + 1, windowEnds: entry.value!.windowEnds }
        : { count: 1, windowEnds: now + windowMs };
      op.check(entry).set(entry.key, next, { expireIn: Math.max(1, next.windowEnds - now) });
    }
    return { op, value: undefined };
  });
}
