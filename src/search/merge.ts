/**
 * Segment merges, in the background under the folder's lease: many small segments become one,
 * so a query word reads a few postings values rather than one per fold. Size-tiered: at least
 * `MERGE_FANIN` segments of one size tier (powers of 4 passages) are merged, oldest first. The
 * new segment replaces the old ones in one atomic with the ref entries of its mutable items; the
 * old blocks and postings are deleted after, once queries that saw them have read them.
 */

import { atomic, commitOnce } from "../kit/commit.ts";
import { getAll, listAll, readKey } from "../kit/reads.ts";
import { type StoredDoc, unpackBlock } from "./codec.ts";
import { releaseLease, takeLease, TITLE_WEIGHT } from "./fold.ts";
import { type NewDoc, type SegmentRecord, writeSegment } from "./segment.ts";
import { searchKeys } from "./keys.ts";
import { addTerms } from "./words.ts";

/** Fewest segments of one tier merged together, and most. */
const MERGE_FANIN = 8;
const MERGE_MAX_SEGMENTS = 16;
/** Largest merged segment, in passages. */
const MERGE_MAX_DOCS = 20_000;
/** Most ref entries the swapping atomic rewrites (KV allows 1,000 mutations). */
const MERGE_MAX_REFS = 700;
/** How long old segments stay readable after the swap, for queries already under way. */
const GRACE_MS = 2_000;

/** What one merge did. */
export interface MergeReport {
  segments: number;
  passages: number;
  mutations: number;
}

type Seg = { seg: number } & SegmentRecord;

/** The oldest run of one tier worth merging, within the limits; empty when none is. */
export function chooseMerge(segs: Seg[]): Seg[] {
  const tiers = new Map<number, Seg[]>();
  for (const s of segs) {
    const tier = Math.floor(Math.log(Math.max(1, s.docs)) / Math.log(4));
    if (!tiers.has(tier)) tiers.set(tier, []);
    tiers.get(tier)!.push(s);
  }
  for (const tier of [...tiers.keys()].sort((a, b) => a - b)) {
    const run: Seg[] = [];
    let docs = 0;
    let refs = 0;
    for (const s of tiers.get(tier)!.sort((a, b) => a.seg - b.seg)) {
      if (run.length >= MERGE_MAX_SEGMENTS) break;
      if (docs + s.docs > MERGE_MAX_DOCS || refs + (s.mut ?? 0) > MERGE_MAX_REFS) break;
      run.push(s);
      docs += s.docs;
      refs += s.mut ?? 0;
    }
    if (run.length >= MERGE_FANIN) return run;
  }
  return [];
}

/** Merges one run of segments if one is worth it; null when none is or the lease is held. */
export async function mergeOnce(kv: Deno.Kv, mutable: (kind: string) => boolean) {
  const segs = (await listAll<SegmentRecord>(kv, { prefix: searchKeys.segAll() }))
    .map((e) => ({ seg: e.key[2] as number, ...e.value }));
  const run = chooseMerge(segs);
  if (run.length === 0) return null;
  const lease = await takeLease(kv);
  if (lease === null) return null;
  try {
    return await mergeUnder(kv, run, lease, mutable);
  } finally {
    await releaseLease(kv, lease).catch(() => {});
  }
}

async function mergeUnder(
  kv: Deno.Kv,
  run: Seg[],
  lease: Deno.KvEntryMaybe<unknown>,
  mutable: (kind: string) => boolean,
): Promise<MergeReport | null> {
  // The run as it is now, under the lease: another process may have merged it meanwhile.
  const current = await getAll<SegmentRecord>(kv, run.map((s) => searchKeys.seg(s.seg)));
  if (current.some((e) => e.value === null)) return null;
  // Read under the lease: drops are applied only by a fold, which waits for it.
  const blocks = await Promise.all(
    run.map((s) =>
      listAll<Uint8Array>(kv, { prefix: [...searchKeys.block(s.seg, 0).slice(0, 3)] })
    ),
  );
  const now = Date.now();
  const docs: NewDoc[] = [];
  let len = 0;
  const refs = new Map<string, { key: Deno.KvKey; from: number; to: number }>();
  for (const list of blocks) {
    for (const entry of list) {
      for (const d of await unpackBlock(entry.value)) {
        if (d.e !== undefined && d.e <= now) continue;
        const next = renumber(d, docs.length);
        len += next.len;
        docs.push(next);
        if (!mutable(d.k)) continue;
        const key = searchKeys.ref(d.k, d.r);
        const id = JSON.stringify(key);
        const seen = refs.get(id);
        if (seen === undefined) refs.set(id, { key, from: next.n, to: next.n });
        else seen.to = next.n;
      }
    }
  }
  const meta = await readKey<{ next: number }>(kv, searchKeys.meta());
  const seg = meta.value?.next ?? 1;
  const claim = await commitOnce(
    atomic(kv).check(meta, lease).set(searchKeys.meta(), { next: seg + 1 }),
  );
  if (!claim.ok) return null;
  const written = docs.length === 0
    ? { mutations: 0, posts: [] }
    : await writeSegment(kv, seg, docs);
  const op = atomic(kv).check(lease, ...current);
  const record: SegmentRecord = { docs: docs.length, len, mut: refs.size, posts: written.posts };
  if (docs.length > 0) op.set(searchKeys.seg(seg), record);
  for (const s of run) op.delete(searchKeys.seg(s.seg));
  for (const { key, from, to } of refs.values()) op.set(key, [seg, from, to]);
  if (!(await commitOnce(op)).ok) return null;
  await new Promise((r) => setTimeout(r, GRACE_MS));
  const garbage = run.flatMap((s) => [
    ...blocks[run.indexOf(s)].map((e) => e.key),
    ...(s.posts ?? []).flatMap(([bucket, parts]) =>
      Array.from({ length: parts }, (_, i) => searchKeys.post(bucket, s.seg, i))
    ),
  ]);
  for (let i = 0; i < garbage.length; i += 500) {
    const del = atomic(kv);
    for (const key of garbage.slice(i, i + 500)) del.delete(key);
    await commitOnce(del);
  }
  return {
    segments: run.length,
    passages: docs.length,
    mutations: written.mutations + run.length + refs.size + 2 + garbage.length,
  };
}

/** A stored passage again as a new one, numbered `n`, its terms counted as the fold counts them. */
function renumber(d: StoredDoc, n: number): NewDoc {
  const terms = new Map<string, number>();
  let len = addTerms(d.x, 1, terms);
  if (d.p === 0) len += addTerms(d.t, TITLE_WEIGHT, terms);
  return { ...d, n, terms, len };
}
