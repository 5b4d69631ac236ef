/** Snippets: ~300 characters of a passage around its best match, matched words in «…». */

import { fold, isDense, type ParsedQuery } from "./words.ts";

const segmenter = new Intl.Segmenter("und", { granularity: "word" });
/** Longest snippet, in characters (the marks aside). */
export const SNIPPET_CHARS = 300;

/** The part of `text` around the first matched word, matched words marked. */
export function snippetOf(text: string, q: ParsedQuery): string {
  const flat = text.replace(/\s+/g, " ").trim();
  const hits: { start: number; end: number }[] = [];
  for (const s of segmenter.segment(flat)) {
    if (!s.isWordLike) continue;
    const w = fold(s.segment);
    const hit = q.marks.some((m) =>
      w === m || w.split(/[.'’:_]/).includes(m) ||
      (isDense(m) ? w.includes(m) || m.includes(w) : false)
    ) ||
      q.terms.some((t) => t.prefix && w.startsWith(t.term));
    if (hit) hits.push({ start: s.index, end: s.index + s.segment.length });
  }
  const first = hits[0]?.start ?? 0;
  let from = Math.max(0, first - 80);
  if (from > 0) {
    const space = flat.indexOf(" ", from);
    if (space !== -1 && space < first) from = space + 1;
  }
  const to = Math.min(flat.length, from + SNIPPET_CHARS);
  let out = "";
  let at = from;
  for (const h of hits) {
    if (h.start < from || h.end > to) continue;
    out += flat.slice(at, h.start) + "«" + flat.slice(h.start, h.end) + "»";
    at = h.end;
  }
  out += flat.slice(at, to);
  return `${from > 0 ? "…" : ""}${out}${to < flat.length ? "…" : ""}`;
}
