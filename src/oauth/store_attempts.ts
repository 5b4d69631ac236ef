/**
 * Counters in a fixed window: failed owner-secret attempts per client and per address, and
 * registrations per address. A counter's key is built in `store_keys.ts`.
 */

import { commitWithRetry, getAll } from "../kit/kv.ts";
import { attemptsKey, type AttemptsRecord } from "./store_keys.ts";

/** Whose failed consent attempts are counted. */
export interface AttemptScopes {
  clientId: string;
  address: string;
}

/** The counters a failed owner secret adds to: the client's and the address's. */
export function consentCounters(scopes: AttemptScopes): Deno.KvKey[] {
  return [attemptsKey("client", scopes.clientId), attemptsKey("address", scopes.address)];
}

/** The counter of registrations from one address. */
export function registrationCounter(address: string): Deno.KvKey[] {
  return [attemptsKey("register", address)];
}

/** True when any of `counters` has reached `max` in its current window. */
export async function attemptsExhausted(
  kv: Deno.Kv,
  counters: Deno.KvKey[],
  max: number,
  now: number,
): Promise<boolean> {
  const entries = await getAll<AttemptsRecord>(kv, counters);
  return entries.some((e) => e.value !== null && e.value.windowEnds > now && e.value.count >= max);
}

/** Adds one to each of `counters`, in one atomic; a counter past its window starts a new one. */
export async function recordAttempt(
  kv: Deno.Kv,
  counters: Deno.KvKey[],
  windowMs: number,
  now: number,
): Promise<void> {
  await commitWithRetry(async () => {
    const entries = await getAll<AttemptsRecord>(kv, counters);
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
