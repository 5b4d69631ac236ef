/** BM25, as the query and the pending entries score passages alike. */

import type { StoredDoc } from "./codec.ts";

const K1 = 1.2;
const B = 0.75;

/** A ranked passage before its block is read (pending passages carry their doc). */
export interface Candidate {
  seg: number;
  local: number;
  score: number;
  doc?: StoredDoc;
}

/** BM25's inverse document frequency. */
export const idf = (n: number, df: number) => Math.log(1 + (n - df + 0.5) / (df + 0.5));
/** BM25's term weight. */
export const bm25 = (tf: number, dl: number, avgdl: number) =>
  (tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * dl) / avgdl));
