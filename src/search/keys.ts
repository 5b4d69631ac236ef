/**
 * The search index's KV keys, every one under the top-level `SEARCH_PREFIX` ("search"):
 *
 * - `["search", "q", ulid]` pending entries (kit/search_source.ts), written in records' atomics
 * - `["search", "qd", ulid]` pending entries that replace or drop indexed items
 * - `["search", "meta"]` `{ next }`: the next segment number
 * - `["search", "lease"]` the folder's hold, so one process folds at a time
 * - `["search", "seg", seg]` `{ docs, len }`: a committed segment (its postings count only then)
 * - `["search", "post", bucket, seg, part]` packed postings of the segment's terms in `bucket`
 * - `["search", "blk", seg, block]` compressed docs (`DOCS_PER_BLOCK` passages each)
 * - `["search", "ref", kind, ...ref]` `[seg, from, to]`: where a mutable item's passages are
 * - `["search", "scan"]` progress of indexing an existing database
 */

import { SEARCH_PREFIX } from "../kit/search_source.ts";

/** Passages per block: a result reads one block, a fold writes one per this many passages. */
export const DOCS_PER_BLOCK = 8;
/** Term buckets: a query term reads one bucket; a fold writes at most this many postings keys. */
export const BUCKETS = 128;

export const searchKeys = {
  pendingAll: (): Deno.KvKey => [SEARCH_PREFIX, "q"],
  replacingAll: (): Deno.KvKey => [SEARCH_PREFIX, "qd"],
  meta: (): Deno.KvKey => [SEARCH_PREFIX, "meta"],
  lease: (): Deno.KvKey => [SEARCH_PREFIX, "lease"],
  seg: (seg: number): Deno.KvKey => [SEARCH_PREFIX, "seg", seg],
  segAll: (): Deno.KvKey => [SEARCH_PREFIX, "seg"],
  post: (bucket: number, seg: number, part: number): Deno.KvKey => [
    SEARCH_PREFIX,
    "post",
    bucket,
    seg,
    part,
  ],
  postBucket: (bucket: number): Deno.KvKey => [SEARCH_PREFIX, "post", bucket],
  block: (seg: number, block: number): Deno.KvKey => [SEARCH_PREFIX, "blk", seg, block],
  ref: (kind: string, ref: string[]): Deno.KvKey => [SEARCH_PREFIX, "ref", kind, ...ref],
  scan: (): Deno.KvKey => [SEARCH_PREFIX, "scan"],
  all: (): Deno.KvKey => [SEARCH_PREFIX],
};

/** The bucket of a term: a hash of its first two code points, so a prefix finds its bucket. */
export function bucketOf(term: string): number {
  const head = Array.from(term).slice(0, 2).join("");
  let h = 0x811c9dc5;
  for (let i = 0; i < head.length; i++) {
    h ^= head.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % BUCKETS;
}
