/**
 * Room in a full store: the oldest handoff that no merge holds is evicted inside the caller's
 * atomic and named in its result, or, with eviction off, the write is refused.
 */

import { unindex } from "../kit/search_source.ts";
import type { HandoffLimits } from "./settings.ts";
import { StaleRead } from "../kit/commit.ts";
import { AppError } from "../kit/errors.ts";
import { listEntries, readKey, readKeys } from "../kit/reads.ts";
import {
  type Evicted,
  type Handoff,
  handoffChunkKey,
  handoffCommentKey,
  handoffCountKey,
  handoffEvictPrefix,
  handoffKey,
  handoffLeaseKey,
  type Lease,
} from "./store_schema.ts";
import { buildEvictIndex } from "./store_evict_index.ts";
import { dropOrder } from "./store_write.ts";

/** Every key a handoff owns besides its record and time index entry. */
function ownedKeys(h: Handoff): Deno.KvKey[] {
  return [
    ...h.chunks.map((c) => handoffChunkKey(h.key, c.id)),
    ...h.commentIds.map((id) => handoffCommentKey(h.key, id)),
  ];
}

/** Adds the removal of `h` (record, time entry, lease) to `op`; its chunks and comments to `garbage`. */
export function removeInto(op: Deno.AtomicOperation, garbage: Deno.KvKey[], h: Handoff): void {
  op.delete(handoffKey(h.key)).delete(handoffLeaseKey(h.key));
  dropOrder(op, h.order);
  garbage.push(...ownedKeys(h));
  unindex(op, [["handoff", h.key], ["comment", h.key]]);
}

/** What a save result says about an evicted handoff. */
function evictedOf(h: Handoff): Evicted {
  return { key: h.key, title: h.title, updatedAt: h.updatedAt };
}

/**
 * The oldest handoff that may be evicted: not imported, not in `exclude` and not held by a live
 * merge lease.
 * Its record and lease entries are returned so the caller's atomic can check them.
 */
async function pickVictim(
  kv: Deno.Kv,
  exclude: ReadonlySet<string>,
): Promise<{ record: Deno.KvEntry<Handoff>; lease: Deno.KvEntryMaybe<Lease> } | null> {
  const now = Date.now();
  await buildEvictIndex(kv);
  for await (
    const entry of listEntries<string>(kv, { prefix: handoffEvictPrefix() }, { batchSize: 20 })
  ) {
    const key = entry.value;
    if (exclude.has(key)) continue;
    const [record, lease] = await readKeys<[Handoff, Lease]>(kv, [
      handoffKey(key),
      handoffLeaseKey(key),
    ]);
    if (record.value === null || record.value.order !== entry.key[1]) continue;
    // Imported history has its own limit and is never evicted (HANDOFF_IMPORTED_MAX_COUNT).
    if (record.value.imported) continue;
    if (lease.value !== null && lease.value.until > now) continue;
    return { record: record as Deno.KvEntry<Handoff>, lease };
  }
  return null;
}

/** The error of a full store: how many it holds, the maximum, and what to do. */
export function fullError(
  what: string,
  limits: HandoffLimits,
  count: number,
  reason: string,
): AppError {
  return new AppError(
    "full",
    `${what}: the store holds ${count} handoffs, the maximum (HANDOFF_MAX_COUNT=${limits.maxHandoffs}); ${reason}`,
  );
}

/**
 * Makes room for one more handoff inside `op`: checks the count, and when it is at the maximum
 * evicts the oldest evictable handoff (or throws when eviction is off). Returns the evicted one.
 */
export async function makeRoom(
  kv: Deno.Kv,
  limits: HandoffLimits,
  op: Deno.AtomicOperation,
  garbage: Deno.KvKey[],
  count: Deno.KvEntryMaybe<number>,
  delta: number,
  exclude: ReadonlySet<string>,
  what: string,
): Promise<Evicted | null> {
  const current = count.value ?? 0;
  let next = current + delta;
  let evicted: Evicted | null = null;
  if (delta > 0 && next > limits.maxHandoffs) {
    if (!limits.evictWhenFull) {
      throw fullError(
        what,
        limits,
        current,
        "eviction is off (HANDOFF_EVICT=false): delete a handoff with handoff_clear first",
      );
    }
    const victim = await pickVictim(kv, exclude);
    if (victim === null) {
      // Concurrent evictions can empty the index under a stale count: only an unchanged count
      // means every handoff really is held by a merge.
      const recount = await readKey<number>(kv, handoffCountKey());
      if (recount.versionstamp !== count.versionstamp) throw new StaleRead("handoff count moved");
      throw fullError(what, limits, current, "every handoff is being merged; try again shortly");
    }
    op.check(victim.record, victim.lease);
    removeInto(op, garbage, victim.record.value);
    evicted = evictedOf(victim.record.value);
    next--;
  }
  op.check(count).set(handoffCountKey(), next);
  return evicted;
}

/** With eviction off, refuses a new handoff in a full store before a large write is staged. */
export async function refuseEarlyWhenFull(
  kv: Deno.Kv,
  limits: HandoffLimits,
  key: string | null,
  what: string,
): Promise<void> {
  const count = (await readKey<number>(kv, handoffCountKey())).value ?? 0;
  if (count < limits.maxHandoffs) return;
  if (key !== null && (await readKey(kv, handoffKey(key))).value !== null) return; // an overwrite
  throw fullError(
    what,
    limits,
    count,
    "eviction is off (HANDOFF_EVICT=false): delete a handoff with handoff_clear first",
  );
}
