/**
 * The folder: pending entries → one immutable segment (blocks of passages and packed postings
 * per term bucket), in the background. One process folds at a time (a lease); a segment
 * counts only once its `seg` key lands, in the same atomic that deletes the pending entries it
 * holds, so a crash never indexes a record twice or loses one.
 */

import { atomic, commitOnce } from "../kit/commit.ts";
import { randomToken } from "../kit/ids.ts";
import { getAll, listAll, readKey } from "../kit/reads.ts";
import {
  type IndexDoc,
  type PendingEntry,
  type SearchSource,
  splitPassages,
} from "../kit/search_source.ts";
import { packBlock, unpackBlock } from "./codec.ts";
import { DOCS_PER_BLOCK, searchKeys } from "./keys.ts";
import { type NewDoc, type SegmentRecord, writeSegment } from "./segment.ts";
import { addTerms } from "./words.ts";

/** Title words weigh this many body words. */
export const TITLE_WEIGHT = 3;
const LEASE_MS = 60_000;

/** What one fold did. */
export interface FoldReport {
  records: number;
  passages: number;
  dropped: number;
  mutations: number;
}

type RefLoc = [number, number, number];

/** A source per kind. */
export type Sources = ReadonlyMap<string, SearchSource>;

/** Folds up to `batch` pending entries; null when another process holds the lease or none wait. */
export async function foldOnce(
  kv: Deno.Kv,
  sources: Sources,
  batch: number,
): Promise<FoldReport | null> {
  if ((await oldestPending(kv, 1)).length === 0) return null;
  const lease = await takeLease(kv);
  if (lease === null) return null;
  try {
    // Listed under the lease: entries another folder took before it are gone by now.
    const pending = await oldestPending(kv, batch);
    if (pending.length === 0) {
      await releaseLease(kv, lease);
      return null;
    }
    return await foldUnder(kv, sources, pending, lease);
  } catch (error) {
    // Let the next attempt (here or in another process) start at once, not after the lease.
    await releaseLease(kv, lease).catch(() => {});
    throw error;
  }
}

async function foldUnder(
  kv: Deno.Kv,
  sources: Sources,
  pending: Deno.KvEntry<PendingEntry>[],
  lease: Deno.KvEntryMaybe<unknown>,
): Promise<FoldReport | null> {
  const report: FoldReport = { records: pending.length, passages: 0, dropped: 0, mutations: 0 };
  const { docs, exact, prefixes, kept } = await resolve(kv, sources, pending);
  const refWrites = new Map<string, { key: Deno.KvKey; loc: RefLoc | null }>();
  report.dropped = await dropIndexed(kv, sources, exact, prefixes, refWrites, report);
  const meta = await readKey<{ next: number }>(kv, searchKeys.meta());
  const seg = meta.value?.next ?? 1;
  const claim = await commitOnce(
    atomic(kv).check(meta, lease).set(searchKeys.meta(), { next: seg + 1 }),
  );
  if (!claim.ok) return null;
  const stored = toStored(docs, sources, refWrites, seg);
  report.passages = stored.docs.length;
  const written = await writeSegment(kv, seg, stored.docs);
  report.mutations += written.mutations;
  // Refs of dropped items go first, in batches: their passages are already out of the blocks,
  // and a drop applied again finds nothing. The last atomic stays under KV's 1,000 mutations.
  const gone = [...refWrites.values()].filter((w) => w.loc === null).map((w) => w.key);
  for (let i = 0; i < gone.length; i += 500) {
    const del = atomic(kv).check(lease);
    for (const key of gone.slice(i, i + 500)) del.delete(key);
    if (!(await commitOnce(del)).ok) return null;
  }
  const op = atomic(kv).check(lease);
  if (stored.docs.length > 0) {
    const mut = [...refWrites.values()].filter((w) => w.loc !== null).length;
    const record: SegmentRecord = {
      docs: stored.docs.length,
      len: stored.len,
      mut,
      posts: written.posts,
    };
    op.set(searchKeys.seg(seg), record);
  }
  for (const { key, loc } of refWrites.values()) if (loc !== null) op.set(key, loc);
  for (const entry of pending) if (!kept.has(JSON.stringify(entry.key))) op.delete(entry.key);
  op.delete(searchKeys.lease());
  const done = await commitOnce(op);
  if (!done.ok) return null;
  report.mutations += refWrites.size + pending.length + 2;
  return report;
}

/** The oldest `batch` pending entries of both streams, in the order they were written. */
async function oldestPending(kv: Deno.Kv, batch: number): Promise<Deno.KvEntry<PendingEntry>[]> {
  const [news, replacing] = await Promise.all([
    listAll<PendingEntry>(kv, { prefix: searchKeys.pendingAll() }, { limit: batch }),
    listAll<PendingEntry>(kv, { prefix: searchKeys.replacingAll() }, { limit: batch }),
  ]);
  return [...news, ...replacing].sort((a, b) => (String(a.key[2]) < String(b.key[2]) ? -1 : 1))
    .slice(0, batch);
}

/** Gives the lease back, if it is still this holder's. */
export function releaseLease(
  kv: Deno.Kv,
  lease: Deno.KvEntryMaybe<unknown>,
): Promise<Deno.KvCommitResult | Deno.KvCommitError> {
  return commitOnce(atomic(kv).check(lease).delete(searchKeys.lease()));
}

/** Takes the folder's lease (one process folds or merges at a time); null when held. */
export async function takeLease(kv: Deno.Kv): Promise<Deno.KvEntryMaybe<unknown> | null> {
  const current = await readKey<{ until: number }>(kv, searchKeys.lease());
  if (current.value !== null && current.value.until > Date.now()) return null;
  const mine = { owner: randomToken(9), until: Date.now() + LEASE_MS };
  const res = await commitOnce(
    atomic(kv).check(current).set(searchKeys.lease(), mine, { expireIn: LEASE_MS }),
  );
  if (!res.ok) return null;
  return await readKey(kv, searchKeys.lease());
}

const refId = (kind: string, ref: string[]) => JSON.stringify([kind, ...ref]);

/**
 * The docs to add (last write per ref wins), the refs and prefixes to drop first, and the
 * entries whose item could not be read back now: they stay pending for the next fold (a read
 * back always gives the item as it is then, so taking the entries after them first is safe).
 */
async function resolve(
  kv: Deno.Kv,
  sources: Sources,
  pending: Deno.KvEntry<PendingEntry>[],
): Promise<{ docs: IndexDoc[]; exact: string[][]; prefixes: string[][]; kept: Set<string> }> {
  const docs = new Map<string, IndexDoc | null>();
  const exact: string[][] = [];
  const prefixes: string[][] = [];
  const kept = new Set<string>();
  for (const { key, value } of pending) {
    if (value.drop !== undefined) {
      for (const prefix of value.drop) {
        prefixes.push(prefix);
        const head = JSON.stringify(prefix).slice(0, -1);
        for (const id of docs.keys()) if (id.startsWith(head)) docs.set(id, null);
      }
      continue;
    }
    const target = value.doc ?? value.load;
    if (target === undefined) continue;
    const id = refId(target.kind, target.ref);
    let doc: IndexDoc | null;
    try {
      doc = value.doc ?? await loadDoc(kv, sources, target.kind, target.ref);
    } catch {
      kept.add(JSON.stringify(key));
      continue;
    }
    docs.delete(id);
    if (sources.get(target.kind)?.mutable) exact.push([target.kind, ...target.ref]);
    docs.set(id, doc);
  }
  const found = [...docs.values()].filter((d): d is IndexDoc => d !== null);
  return { docs: found, exact, prefixes, kept };
}

async function loadDoc(kv: Deno.Kv, sources: Sources, kind: string, ref: string[]) {
  const source = sources.get(kind);
  return source === undefined ? null : await source.load(kv, ref);
}

/** Removes what the index holds of `exact` refs and everything under `prefixes`. */
async function dropIndexed(
  kv: Deno.Kv,
  sources: Sources,
  exact: string[][],
  prefixes: string[][],
  refWrites: Map<string, { key: Deno.KvKey; loc: RefLoc | null }>,
  report: FoldReport,
): Promise<number> {
  const keys = [...exact, ...prefixes].map(([kind, ...ref]) => searchKeys.ref(kind, ref));
  const found = (await getAll<RefLoc>(kv, keys)).filter((e) => e.value !== null);
  for (const [kind, ...ref] of prefixes) {
    if (!sources.get(kind)?.mutable && sources.has(kind)) continue;
    found.push(...await listAll<RefLoc>(kv, { prefix: searchKeys.ref(kind, ref) }));
  }
  const byBlock = new Map<string, { seg: number; block: number; locals: Set<number> }>();
  for (const entry of found) {
    refWrites.set(JSON.stringify(entry.key), { key: entry.key, loc: null });
    const [seg, from, to] = entry.value!;
    for (let n = from; n <= to; n++) {
      const block = Math.floor(n / DOCS_PER_BLOCK);
      const id = `${seg}/${block}`;
      let b = byBlock.get(id);
      if (b === undefined) byBlock.set(id, b = { seg, block, locals: new Set() });
      b.locals.add(n);
    }
  }
  let dropped = 0;
  for (const { seg, block, locals } of byBlock.values()) {
    const key = searchKeys.block(seg, block);
    const entry = await readKey<Uint8Array>(kv, key);
    if (entry.value === null) continue;
    const docs = await unpackBlock(entry.value);
    const kept = docs.filter((d) => !locals.has(d.n));
    dropped += docs.length - kept.length;
    const op = atomic(kv).check(entry);
    kept.length === 0 ? op.delete(key) : op.set(key, await packBlock(kept));
    await commitOnce(op);
    report.mutations++;
  }
  return dropped;
}

/** A doc's passages, long ones split (a 40 KB message ranks by its best part, not its whole). */
export function passagesOf(doc: IndexDoc): string[] {
  return doc.passages.length === 0 ? [""] : doc.passages.flatMap((p) => splitPassages(p));
}

/** The passages of `docs` as stored, numbered from 0, with the ref entries of mutable kinds. */
function toStored(
  docs: IndexDoc[],
  sources: Sources,
  refWrites: Map<string, { key: Deno.KvKey; loc: RefLoc | null }>,
  seg: number,
): { docs: NewDoc[]; len: number } {
  const out: NewDoc[] = [];
  let total = 0;
  for (const doc of docs) {
    const from = out.length;
    const created = Date.parse(doc.created_at);
    const bodies = passagesOf(doc);
    bodies.forEach((text, p) => {
      const terms = new Map<string, number>();
      let len = addTerms(text, 1, terms);
      if (p === 0) len += addTerms(doc.title, TITLE_WEIGHT, terms);
      total += len;
      const m = doc.meta;
      out.push({
        n: out.length,
        k: doc.kind,
        r: doc.ref,
        p,
        t: doc.title,
        x: text,
        m: {
          ...(m.workspace === undefined ? {} : { w: m.workspace }),
          ...(m.project_id === undefined ? {} : { pr: m.project_id }),
          ...(m.author === undefined ? {} : { a: m.author }),
          ...(m.via === undefined ? {} : { v: m.via }),
        },
        c: Number.isFinite(created) ? created : 0,
        ...(doc.expires_at === undefined ? {} : { e: doc.expires_at }),
        terms,
        len,
      });
    });
    if (sources.get(doc.kind)?.mutable) {
      const key = searchKeys.ref(doc.kind, doc.ref);
      refWrites.set(JSON.stringify(key), { key, loc: [seg, from, out.length - 1] });
    }
  }
  return { docs: out, len: total };
}

/** Writes a segment's blocks and postings (not yet counted: its `seg` key comes last). */
