/**
 * The eviction index (`["handoff_evict", order]`), so eviction lists only the handoffs it may
 * evict and never walks past imported history (10,000 imported chats made each evicting save
 * read 10,000 records: 760 ms). Every write keeps it (`putRecord`, `dropOrder`); a database
 * written before it existed gets it built from the records once, on the first eviction.
 */

import { atomic, commitOnce } from "../kit/commit.ts";
import { listEntries, readKey, readKeys } from "../kit/reads.ts";
import {
  type Handoff,
  handoffEvictBuiltKey,
  handoffEvictKey,
  handoffKey,
  handoffTimePrefix,
} from "./store_schema.ts";

/** Databases this process has seen built, so the marker is read once per database. */
const built = new WeakSet<Deno.Kv>();

/**
 * Adds the eviction entry of every evictable handoff that lacks one, then marks the index built.
 * Each entry is written only while its record is unchanged (checked), so a record rewritten
 * meanwhile, which wrote its own entry, is never given a stale one.
 */
export async function buildEvictIndex(kv: Deno.Kv): Promise<void> {
  if (built.has(kv)) return;
  if ((await readKey(kv, handoffEvictBuiltKey())).value !== null) {
    built.add(kv);
    return;
  }
  for await (const entry of listEntries<string>(kv, { prefix: handoffTimePrefix() })) {
    const order = entry.key[1] as string;
    const [record, indexed] = await readKeys<[Handoff, string]>(kv, [
      handoffKey(entry.value),
      handoffEvictKey(order),
    ]);
    const h = record.value;
    if (h === null || h.order !== order || h.imported || indexed.value !== null) continue;
    const op = atomic(kv).check(record).set(handoffEvictKey(order), h.key);
    await commitOnce(op); // a failed check: the rewrite wrote its own entry
  }
  const op = atomic(kv).set(handoffEvictBuiltKey(), true);
  await commitOnce(op);
  built.add(kv);
}
