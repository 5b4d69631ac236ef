/**
 * One query in two waves of parallel KV reads: (1) the committed segments, the pending entries
 * and the postings of each query term's bucket; (2) the blocks of the best candidates. BM25
 * over passages (title words weighted), every term required, ties to the newest; phrases are
 * checked in the passage text; pending entries are scored in memory, so a short record is found
 * as soon as its write is acknowledged.
 */

import { getAll, listAll } from "../kit/reads.ts";
import type { PendingEntry } from "../kit/search_source.ts";
import {
  lengthOf,
  type Posting,
  readPostings,
  type StoredDoc,
  unpackBlock,
  wanted,
} from "./codec.ts";
import { pendingDocs, scorePending } from "./pending.ts";
import { bm25, type Candidate, idf } from "./score.ts";

export { bm25, type Candidate, idf } from "./score.ts";
import { bucketOf, DOCS_PER_BLOCK, searchKeys } from "./keys.ts";
import { fold, type ParsedQuery } from "./words.ts";

/** What narrows a query. */
export interface Filters {
  kinds?: string[];
  workspace?: string;
  project_id?: string;
  author?: string;
  after?: number;
  before?: number;
}

/** The limits a query runs under (named settings). */
export interface QueryLimits {
  postingsMax: number;
  pendingScan: number;
}

/** A ranked passage with what a result shows. */
export interface Hit {
  doc: StoredDoc;
  score: number;
}

/** What a query found, best first, one hit per item. */
export interface Ranked {
  hits: Hit[];
  /** Passages written but not yet searchable (large items waiting for the folder). */
  pending: number;
  /** Query terms whose postings were cut at `postingsMax`. */
  capped: string[];
}

/** Runs `q` with `filters`; `want` hits are looked for (offset + limit + one for has_more). */
export async function rank(
  kv: Deno.Kv,
  q: ParsedQuery,
  filters: Filters,
  want: number,
  limits: QueryLimits,
): Promise<Ranked> {
  const buckets = [...new Set(q.terms.map((t) => bucketOf(t.term)))];
  const newest = { limit: limits.pendingScan, reverse: true };
  const [segs, pending, replacing, ...lists] = await Promise.all([
    listAll<{ docs: number; len: number }>(kv, { prefix: searchKeys.segAll() }),
    listAll<PendingEntry>(kv, { prefix: searchKeys.pendingAll() }, newest),
    listAll<PendingEntry>(kv, { prefix: searchKeys.replacingAll() }, newest),
    ...buckets.map((b) => listAll<Uint8Array>(kv, { prefix: searchKeys.postBucket(b) })),
  ]);
  const committed = new Set(segs.map((s) => s.key[2] as number));
  let docs = 0;
  let len = 0;
  for (const s of segs) docs += s.value.docs, len += s.value.len;
  const written = [...pending, ...replacing].sort((
    a,
    b,
  ) => (String(a.key[2]) < String(b.key[2]) ? -1 : 1));
  const pend = pendingDocs(written.map((p) => p.value));
  docs += pend.docs.length;
  len += pend.docs.reduce((n, d) => n + d.len, 0);
  const avgdl = docs === 0 ? 1 : Math.max(1, len / docs);
  const perTerm = postingsOf(q, buckets, lists, committed, limits.postingsMax);
  const scores = scoreSegments(perTerm.lists, docs, avgdl, pend.df(q));
  const fromPending = scorePending(q, pend.docs, perTerm.lists, docs, avgdl, pend.df(q));
  const ranked = [...scores, ...fromPending].sort(byRank);
  const hits = await readBest(kv, ranked, q, filters, want, pend);
  return { hits, pending: pend.waiting, capped: perTerm.capped };
}

function byRank(a: Candidate, b: Candidate): number {
  return b.score - a.score || b.seg - a.seg || b.local - a.local;
}

/** Postings per query term, merged across prefix matches and segments, capped. */
function postingsOf(
  q: ParsedQuery,
  buckets: number[],
  lists: Deno.KvEntry<Uint8Array>[][],
  committed: Set<number>,
  max: number,
): { lists: Posting[][]; capped: string[] } {
  const capped: string[] = [];
  const out = q.terms.map((t) => {
    const entries = lists[buckets.indexOf(bucketOf(t.term))];
    const want = wanted(t.term, t.prefix);
    let all: Posting[] = [];
    for (const e of entries) {
      const seg = e.key[3] as number;
      if (committed.has(seg)) readPostings(e.value, seg, want, all);
    }
    // A prefix may match several words in one passage: one posting per passage, tf summed.
    if (t.prefix) all = mergeByDoc(all);
    if (all.length > max) {
      capped.push(t.term + (t.prefix ? "*" : ""));
      all.sort((a, b) => b.seg - a.seg || b.local - a.local);
      all = all.slice(0, max);
    }
    return all;
  });
  return { lists: out, capped };
}

function mergeByDoc(all: Posting[]): Posting[] {
  const by = new Map<number, Posting>();
  for (const p of all) {
    const id = p.seg * 1_000_000 + p.local;
    const seen = by.get(id);
    if (seen === undefined) by.set(id, { ...p });
    else seen.tf += p.tf;
  }
  return [...by.values()];
}

/** BM25 of every passage holding every term. */
function scoreSegments(
  lists: Posting[][],
  n: number,
  avgdl: number,
  pendingDf: number[],
): Candidate[] {
  if (lists.length === 0 || lists.some((l) => l.length === 0)) return [];
  const order = lists.map((_l, i) => i).sort((a, b) => lists[a].length - lists[b].length);
  let acc = new Map<number, Candidate>();
  for (const p of lists[order[0]]) {
    const w = idf(n, lists[order[0]].length + pendingDf[order[0]]);
    acc.set(p.seg * 1_000_000 + p.local, {
      seg: p.seg,
      local: p.local,
      score: w * bm25(p.tf, lengthOf(p.dl), avgdl),
    });
  }
  for (const i of order.slice(1)) {
    const w = idf(n, lists[i].length + pendingDf[i]);
    const next = new Map<number, Candidate>();
    for (const p of lists[i]) {
      const id = p.seg * 1_000_000 + p.local;
      const c = acc.get(id);
      if (c === undefined) continue;
      c.score += w * bm25(p.tf, lengthOf(p.dl), avgdl);
      next.set(id, c);
    }
    acc = next;
  }
  return [...acc.values()];
}

/**
 * Reads the blocks of the best candidates (one wave) and keeps those that pass every check.
 * Only when deleted or filtered passages crowd the top does it read the next candidates' blocks.
 */
async function readBest(
  kv: Deno.Kv,
  ranked: Candidate[],
  q: ParsedQuery,
  filters: Filters,
  want: number,
  pend: { replaced: Set<string>; dropped: string[] },
): Promise<Hit[]> {
  const narrow = q.phrases.length > 0 || Object.values(filters).some((v) => v !== undefined);
  const now = Date.now();
  const seen = new Set<string>();
  const hits: Hit[] = [];
  let from = 0;
  let step = narrow ? 50 * want + 200 : want + 4;
  while (hits.length < want && from < ranked.length) {
    const take = ranked.slice(from, from + step);
    from += take.length;
    step *= 4;
    const docs = await readBlocks(kv, take);
    for (const c of take) {
      const doc = c.doc ?? docs.get(`${c.seg}/${c.local}`);
      if (doc === undefined || (doc.e !== undefined && doc.e <= now)) continue;
      const id = JSON.stringify([doc.k, ...doc.r]);
      const hidden = c.doc === undefined &&
        (pend.replaced.has(id) || pend.dropped.some((p) => id.startsWith(p)));
      if (hidden || seen.has(id) || !passes(doc, filters, q)) continue;
      seen.add(id);
      hits.push({ doc, score: c.score });
      if (hits.length >= want) break;
    }
  }
  return hits;
}

/** The passages of the blocks `candidates` are in, by `seg/local`: one wave of reads. */
async function readBlocks(kv: Deno.Kv, candidates: Candidate[]): Promise<Map<string, StoredDoc>> {
  const blocks = new Map<string, [number, number]>();
  for (const c of candidates) {
    if (c.doc !== undefined) continue;
    const block = Math.floor(c.local / DOCS_PER_BLOCK);
    blocks.set(`${c.seg}/${block}`, [c.seg, block]);
  }
  const ids = [...blocks.values()];
  const entries = await getAll<Uint8Array>(kv, ids.map(([seg, b]) => searchKeys.block(seg, b)));
  const docs = new Map<string, StoredDoc>();
  await Promise.all(entries.map(async (e, i) => {
    if (e.value === null) return;
    for (const d of await unpackBlock(e.value)) docs.set(`${ids[i][0]}/${d.n}`, d);
  }));
  return docs;
}

function passes(doc: StoredDoc, f: Filters, q: ParsedQuery): boolean {
  if (f.kinds !== undefined && !f.kinds.includes(doc.k)) return false;
  if (f.workspace !== undefined && doc.m.w !== f.workspace) return false;
  if (f.project_id !== undefined && doc.m.pr !== f.project_id) return false;
  if (f.author !== undefined && doc.m.a?.toLowerCase() !== f.author.toLowerCase()) return false;
  if (f.after !== undefined && doc.c < f.after) return false;
  if (f.before !== undefined && doc.c >= f.before) return false;
  if (q.phrases.length > 0) {
    const text = fold(`${doc.p === 0 ? doc.t + "\n" : ""}${doc.x}`).replace(/\s+/g, " ");
    if (!q.phrases.every((p) => text.includes(p))) return false;
  }
  return true;
}
