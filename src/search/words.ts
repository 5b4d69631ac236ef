/**
 * Text → index terms, the same for stored text and queries: NFKC, case folding, Latin/Greek/
 * Cyrillic accents removed, `Intl.Segmenter` words, and inside runs of Han, Kana, Hangul, Thai,
 * Lao, Khmer or Myanmar text every two-character sub-word (so 会議 is found in 東京で明日の会議
 * however the segmenter split it).
 */

const segmenter = new Intl.Segmenter("und", { granularity: "word" });
/** Scripts written without spaces between words (or, for Hangul, with particles attached). */
const DENSE =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
const DENSE_RUN =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}\u30FC\p{M}]+/gu;
/** Characters the segmenter keeps inside a word, between whose parts a reader sees words. */
const JOINERS = /[.'’:_]/;
/** Longest term kept (in UTF-16 units): longer "words" are hashes or noise. */
const TERM_MAX = 64;

/** Folds `text` for matching: NFKC, lower case, accents off (marks of other scripts kept). */
export function fold(text: string): string {
  return text.normalize("NFKC").toLowerCase().normalize("NFD")
    .replace(/[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff]/g, "").normalize("NFC");
}

/** True when `word` is written in a script without spaces. */
export function isDense(word: string): boolean {
  return DENSE.test(word);
}

/** The word-like segments of folded `text`, with their UTF-16 offsets in it. */
export function* words(folded: string): Generator<{ word: string; index: number }> {
  for (const s of segmenter.segment(folded)) {
    if (s.isWordLike && s.segment.length <= TERM_MAX) yield { word: s.segment, index: s.index };
  }
}

/** The two-code-point sub-words of `run`. */
export function bigrams(run: string): string[] {
  const chars = Array.from(run);
  const out: string[] = [];
  for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i] + chars[i + 1]);
  return out;
}

/** Term frequencies of `text` (weight per occurrence), added into `into`; returns the count. */
export function addTerms(text: string, weight: number, into: Map<string, number>): number {
  const folded = fold(text);
  let count = 0;
  for (const { word } of words(folded)) {
    into.set(word, (into.get(word) ?? 0) + weight);
    count++;
    // The segmenter keeps "it's", "node.js" and "snake_case" whole: their parts are words too.
    if (JOINERS.test(word)) {
      for (const part of word.split(JOINERS)) {
        if (part !== "") into.set(part, (into.get(part) ?? 0) + weight);
      }
    }
  }
  for (const run of folded.matchAll(DENSE_RUN)) {
    for (const pair of bigrams(run[0])) {
      if (!isDense(pair)) continue;
      into.set(pair, (into.get(pair) ?? 0) + weight);
    }
  }
  return count;
}

/** What one query word matches: a term, a prefix, or (dense scripts) all of its sub-words. */
export type QueryTerm = { term: string; prefix: boolean };

/** A parsed query: groups that must all match; phrases to check in the text. */
export interface ParsedQuery {
  /** Each group is one word; a hit needs every term of every group. */
  terms: QueryTerm[];
  /** Folded phrases ("…" in the query) each hit's text must contain. */
  phrases: string[];
  /** Folded plain words, to mark in snippets. */
  marks: string[];
}

/** Splits a query into terms, prefixes (`retr*`) and quoted phrases. */
export function parseQuery(query: string): ParsedQuery {
  const terms: QueryTerm[] = [];
  const phrases: string[] = [];
  const marks: string[] = [];
  const parts = query.split('"');
  parts.forEach((part, i) => {
    const folded = fold(part);
    const quoted = i % 2 === 1 && i < parts.length - 1;
    if (quoted && folded.trim() !== "") phrases.push(folded.trim().replace(/\s+/g, " "));
    for (const { word, index } of words(folded)) {
      const after = folded[index + word.length];
      const prefix = !quoted && after === "*";
      marks.push(word);
      if (isDense(word) && Array.from(word).length > 1) {
        for (const pair of bigrams(word)) terms.push({ term: pair, prefix: false });
      } else {
        terms.push({ term: word, prefix });
      }
    }
  });
  const seen = new Set<string>();
  const unique = terms.filter((t) => {
    const id = `${t.prefix ? "*" : ""}${t.term}`;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
  return { terms: unique, phrases, marks };
}
