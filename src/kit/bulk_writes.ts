/**
 * Writes over a whole prefix, in atomics of bounded size: deleting everything under a prefix,
 * and rewriting a prefix's keys with a new expiry. Each batch goes through commit.ts.
 */

import { AppError } from "./errors.ts";
import { atomic, commitOnce, commitWithRetry } from "./commit.ts";
import { MAX_ATOMIC_CHECKS, roughSize } from "./kv_limits.ts";
import { getAll, listEntries } from "./reads.ts";

/** Bytes of values we let one batch write, well under KV's 800 KiB per atomic. */
const BATCH_BYTES = 400 * 1024;

/** Deletes every key under `prefix`, `batch` keys per atomic; returns how many it deleted. */
export async function deleteUnder(
  kv: Deno.Kv,
  prefix: Deno.KvKey,
  batch = 500,
): Promise<number> {
  let deleted = 0;
  for (;;) {
    const keys: Deno.KvKey[] = [];
    for await (const entry of listEntries(kv, { prefix }, { limit: batch })) keys.push(entry.key);
    if (keys.length === 0) return deleted;
    const op = atomic(kv);
    for (const key of keys) op.delete(key);
    const res = await commitOnce(op);
    if (!res.ok) throw new AppError("busy", "Delete batch failed to commit; try again");
    deleted += keys.length;
  }
}

/**
 * Rewrites every key under `prefixes` unchanged but with a new expiry (`undefined`: never
 * expire). Each key is checked against the version just read, so a key deleted or replaced
 * meanwhile is never brought back or overwritten with an old value.
 */
export async function resetExpiry(
  kv: Deno.Kv,
  prefixes: Deno.KvKey[],
  expireIn: number | undefined,
): Promise<void> {
  const options = expireIn === undefined ? undefined : { expireIn };
  for (const prefix of prefixes) {
    let keys: Deno.KvKey[] = [];
    let bytes = 0;
    const flush = async () => {
      const batch = keys;
      keys = [];
      bytes = 0;
      await commitWithRetry(async () => {
        const op = atomic(kv);
        for (const entry of await getAll(kv, batch)) {
          if (entry.versionstamp === null) continue;
          op.check(entry).set(entry.key, entry.value, options);
        }
        return { op, value: undefined };
      });
    };
    for await (const entry of listEntries(kv, { prefix })) {
      const size = roughSize(entry.value, BATCH_BYTES);
      if (keys.length === MAX_ATOMIC_CHECKS || (keys.length > 0 && bytes + size > BATCH_BYTES)) {
        await flush();
      }
      keys.push(entry.key);
      bytes += size;
    }
    if (keys.length > 0) await flush();
  }
}
