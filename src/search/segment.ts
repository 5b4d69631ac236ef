/**
 * Writing one segment: its passages in deflated blocks of `DOCS_PER_BLOCK`, its postings packed
 * per term bucket, in atomics under KV's limits. The segment counts only once its `seg` record
 * lands (written by the fold or the merge that made it).
 */

import { atomic, commitOnce } from "../kit/commit.ts";
import { packBlock, packPostings, quantizeLength, type StoredDoc } from "./codec.ts";
import { bucketOf, DOCS_PER_BLOCK, searchKeys } from "./keys.ts";

/** Mutations and bytes per atomic of segment data, under KV's limits. */
const WRITE_MUTATIONS = 500;
const WRITE_BYTES = 400_000;

/** A passage about to be written: its stored form, its terms and its length in words. */
export type NewDoc = StoredDoc & { terms: Map<string, number>; len: number };

/** What a segment record holds: counts for BM25, and what a merge must delete. */
export interface SegmentRecord {
  docs: number;
  len: number;
  /** Items of mutable kinds (ref entries pointing here). */
  mut: number;
  /** `[bucket, parts]` of every postings value written. */
  posts: [number, number][];
}

/**
 * Writes a segment's blocks and postings (not yet counted: its `seg` key comes last); returns
 * the mutations made and the postings values written.
 */
export async function writeSegment(
  kv: Deno.Kv,
  seg: number,
  docs: NewDoc[],
): Promise<{ mutations: number; posts: [number, number][] }> {
  const writes: [Deno.KvKey, Uint8Array][] = [];
  for (let b = 0; b * DOCS_PER_BLOCK < docs.length; b++) {
    const slice = docs.slice(b * DOCS_PER_BLOCK, (b + 1) * DOCS_PER_BLOCK)
      .map(({ terms: _t, len: _l, ...d }) => d);
    writes.push([searchKeys.block(seg, b), await packBlock(slice)]);
  }
  const buckets = new Map<number, Map<string, { local: number; tf: number; dl: number }[]>>();
  for (const d of docs) {
    const dl = quantizeLength(d.len);
    for (const [term, tf] of d.terms) {
      const bucket = bucketOf(term);
      let terms = buckets.get(bucket);
      if (terms === undefined) buckets.set(bucket, terms = new Map());
      let list = terms.get(term);
      if (list === undefined) terms.set(term, list = []);
      list.push({ local: d.n, tf, dl });
    }
  }
  const posts: [number, number][] = [];
  for (const [bucket, terms] of buckets) {
    const parts = packPostings(terms);
    parts.forEach((part, i) => writes.push([searchKeys.post(bucket, seg, i), part]));
    posts.push([bucket, parts.length]);
  }
  let op = atomic(kv);
  let count = 0;
  let bytes = 0;
  for (const [key, value] of writes) {
    if (count >= WRITE_MUTATIONS || bytes + value.length > WRITE_BYTES) {
      await commitPlain(op);
      op = atomic(kv);
      count = 0;
      bytes = 0;
    }
    op.set(key, value);
    count++;
    bytes += value.length;
  }
  if (count > 0) await commitPlain(op);
  return { mutations: writes.length, posts };
}

async function commitPlain(op: Deno.AtomicOperation): Promise<void> {
  const res = await commitOnce(op);
  if (!res.ok) throw new Error("search: a segment write was refused");
}
