/**
 * A merge's hold on its sources: while a live lease names a handoff, eviction skips it and other
 * merges refuse it. Leases are taken all at once and given back on failure; a lease a crashed
 * merge leaves behind expires by itself.
 */

import { atomic, commitWithRetry } from "../kit/commit.ts";
import { AppError, invalid } from "../kit/errors.ts";
import { readKey, readKeys } from "../kit/reads.ts";
import { type Handoff, handoffKey, handoffLeaseKey, type Lease } from "./store_schema.ts";

/** How long a merge holds its sources against eviction and other merges. */
export const MERGE_LEASE_MS = 120_000;

/** Leases every source for `mergeId`; refuses unknown sources and ones another merge holds. */
export async function takeLeases(
  kv: Deno.Kv,
  keys: string[],
  newKey: string,
  replacing: boolean,
  mergeId: string,
  what: string,
): Promise<void> {
  await commitWithRetry(async () => {
    const records = await readKeys<Handoff[]>(kv, keys.map(handoffKey));
    const leases = await readKeys<Lease[]>(kv, keys.map(handoffLeaseKey));
    const unknown = keys.filter((_, i) => records[i].value === null);
    if (unknown.length > 0) {
      throw new AppError(
        "not_found",
        `${what}: no handoff has key ${
          unknown.map((k) => `"${k}"`).join(", ")
        } (handoff_list shows the keys). Nothing was merged`,
      );
    }
    const now = Date.now();
    const held = keys.find((_, i) => (leases[i].value?.until ?? 0) > now);
    if (held !== undefined) {
      throw new AppError(
        "busy",
        `${what}: "${held}" is being merged by another call; try again when it is done`,
      );
    }
    if (!replacing && (await readKey(kv, handoffKey(newKey))).value !== null) {
      invalid(`${what}: new_key "${newKey}" already exists; choose another or delete it first`);
    }
    const op = atomic(kv).check(...records, ...leases);
    for (const key of keys) {
      op.set(handoffLeaseKey(key), { id: mergeId, until: now + MERGE_LEASE_MS } satisfies Lease);
    }
    return { op, value: undefined };
  });
}

/** Gives back the leases a failed merge holds (those still its own). */
export async function releaseLeases(kv: Deno.Kv, keys: string[], mergeId: string): Promise<void> {
  await commitWithRetry(async () => {
    const leases = await readKeys<Lease[]>(kv, keys.map(handoffLeaseKey));
    const held = leases.filter((lease) => lease.value?.id === mergeId);
    if (held.length === 0) return { value: undefined };
    const op = atomic(kv);
    for (const lease of held) op.check(lease).delete(lease.key);
    return { op, value: undefined };
  });
}
