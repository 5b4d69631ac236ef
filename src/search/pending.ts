/**
 * Pending entries in a query: the passages written but not yet folded, scored in memory with
 * the same BM25, and what they replace or drop (so a segment's older copy is never shown).
 */

import type { IndexDoc, PendingEntry } from "../kit/search_source.ts";
import type { Posting, StoredDoc } from "./codec.ts";
import { passagesOf, TITLE_WEIGHT } from "./fold.ts";
import { bm25, type Candidate, idf } from "./score.ts";
import { addTerms, type ParsedQuery } from "./words.ts";

interface PendingDoc {
  doc: StoredDoc;
  terms: Map<string, number>;
  len: number;
}

/** The pending entries as passages, and what they replace or drop. */
export function pendingDocs(entries: PendingEntry[]) {
  const replaced = new Set<string>();
  const dropped: string[] = [];
  const latest = new Map<string, number>();
  let waiting = 0;
  entries.forEach((e, i) => {
    if (e.drop !== undefined) dropped.push(...e.drop.map((p) => JSON.stringify(p).slice(0, -1)));
    const target = e.doc ?? e.load;
    if (target === undefined) return;
    const id = JSON.stringify([target.kind, ...target.ref]);
    replaced.add(id);
    latest.set(id, i);
    if (e.load !== undefined) waiting++;
  });
  // Only the latest pending write of an item counts, and none that a later drop removed.
  const docs: PendingDoc[] = [];
  entries.forEach((e, i) => {
    if (e.doc === undefined) return;
    const id = JSON.stringify([e.doc.kind, ...e.doc.ref]);
    if (latest.get(id) !== i) return;
    const droppedAfter = entries.slice(i + 1).some((later) =>
      later.drop?.some((p) => id.startsWith(JSON.stringify(p).slice(0, -1)))
    );
    if (!droppedAfter) docs.push(...pendingPassages(e.doc, -docs.length - 1));
  });
  const live = docs;
  return {
    docs: live,
    waiting,
    replaced,
    dropped,
    df: (q: ParsedQuery) =>
      q.terms.map((t) =>
        live.filter((d) =>
          t.prefix ? [...d.terms.keys()].some((k) => k.startsWith(t.term)) : d.terms.has(t.term)
        ).length
      ),
  };
}

function pendingPassages(doc: IndexDoc, base: number): PendingDoc[] {
  return passagesOf(doc).map((text, p) => {
    const terms = new Map<string, number>();
    let len = addTerms(text, 1, terms);
    if (p === 0) len += addTerms(doc.title, TITLE_WEIGHT, terms);
    const m = doc.meta;
    const created = Date.parse(doc.created_at);
    return {
      terms,
      len,
      doc: {
        n: base - p,
        k: doc.kind,
        r: doc.ref,
        p,
        t: doc.title,
        x: text,
        m: { w: m.workspace, pr: m.project_id, a: m.author, v: m.via },
        c: Number.isFinite(created) ? created : 0,
        ...(doc.expires_at === undefined ? {} : { e: doc.expires_at }),
      },
    };
  });
}

/** BM25 of every pending passage holding every query term (they sort after segments on ties). */
export function scorePending(
  q: ParsedQuery,
  docs: PendingDoc[],
  _lists: Posting[][],
  n: number,
  avgdl: number,
  pendingDf: number[],
): Candidate[] {
  const out: Candidate[] = [];
  for (const d of docs) {
    let score = 0;
    let all = true;
    q.terms.forEach((t, i) => {
      let tf = 0;
      if (t.prefix) { for (const [k, v] of d.terms) k.startsWith(t.term) && (tf += v); }
      else tf = d.terms.get(t.term) ?? 0;
      if (tf === 0) all = false;
      score += idf(n, _lists[i].length + pendingDf[i]) * bm25(tf, d.len, avgdl);
    });
    // Pending passages sort after every segment on ties: segment numbers are positive.
    if (all) out.push({ seg: Number.MAX_SAFE_INTEGER, local: d.doc.n, score, doc: d.doc });
  }
  return out;
}
