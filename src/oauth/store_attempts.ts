/**
 * Counters in a fixed window: failed owner-secret attempts per client and per address, and
 * registrations per address. A counter's key is built in `store_keys.ts`.
 */

import { atomic } from "../kit/group_commit.ts";
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

/**
 * The counter a wrong owner secret adds to where no app is involved (the owner console): the
 * address's, the same one the consent page counts, so the two pages share one limit.
 */
export function ownerSecretCounters(address: string): Deno.KvKey[] {
  return [attemptsKey("address", address)];
}

/** The counter of registrations from one address. */
export function registrationCounter(address: string): Deno.KvKey[] {
  return [attemptsKey("register", address)];
}

/** The counter of consent forms opened from one address. */
export function consentFormCounter(address: string): Deno.KvKey[] {
  return [attemptsKey("consent_form", address)];
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

/**
 * Counts one attempt in each of `counters`, in one atomic, unless one has already reached `max`
 * in its window (then nothing is counted and the answer is false). Counting before the secret is
 * compared, not after, keeps tries sent all at once within the limit.
 */
export async function reserveAttempt(
  kv: Deno.Kv,
  counters: Deno.KvKey[],
  max: number,
  windowMs: number,
  now: number,
): Promise<boolean> {
  return await commitWithRetry(async () => {
    const entries = await getAll<AttemptsRecord>(kv, counters);
    const op = atomic(kv);
    for (const entry of entries) {
      const live = entry.value !== null && entry.value.windowEnds > now;
      if (live && entry.value!.count >= max) return { value: false };
      const next: AttemptsRecord = live
        ? { count: entry.value!.count + 1, windowEnds: entry.value!.windowEnds }
        : { count: 1, windowEnds: now + windowMs };
      op.check(entry).set(entry.key, next, { expireIn: Math.max(1, next.windowEnds - now) });
    }
    return { op, value: true };
  });
}

/** Takes back an attempt `reserveAttempt` counted, when it turned out not to be a failure. */
export async function releaseAttempt(
  kv: Deno.Kv,
  counters: Deno.KvKey[],
  now: number,
): Promise<void> {
  await commitWithRetry(async () => {
    const entries = await getAll<AttemptsRecord>(kv, counters);
    const op = atomic(kv);
    for (const entry of entries) {
      if (entry.value === null || entry.value.windowEnds <= now) continue;
      const next = { ...entry.value, count: Math.max(0, entry.value.count - 1) };
      op.check(entry).set(entry.key, next, { expireIn: Math.max(1, next.windowEnds - now) });
    }
    return { op, value: undefined };
  });
}
