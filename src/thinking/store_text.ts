/**
 * How thought text is measured and stored: inline in the thought record when it fits a KV
 * value, or split into chunk keys (a 20,000-character emoji thought is about 80 KB), and read back.
 */

import { getAll } from "../kit/reads.ts";
import { characterCount } from "../kit/text.ts";
import { thoughtPartKey, type ThoughtRecord } from "./store_keys.ts";

/** Code units per text chunk: at most 40,000 bytes even when every unit takes two. */
const PART_UNITS = 20_000;
/** Texts up to this many code units are stored inline in the thought record. */
const INLINE_UNITS = 24_000;

/** Splits `text` into chunks of at most `PART_UNITS` code units, never inside a surrogate pair. */
export function splitText(text: string): string[] {
  const parts: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + PART_UNITS);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
    parts.push(text.slice(start, end));
    start = end;
  }
  return parts;
}

/** The chunks to store `text` in, or `undefined` when it is stored inline. */
export function chunksOf(text: string): string[] | undefined {
  return text.length > INLINE_UNITS ? splitText(text) : undefined;
}

/** A sequence's title: the first line of its first thought, at most 80 characters. */
export function titleOf(text: string): string {
  const line = text.trim().split(/\r?\n|\u2028|\u2029/, 1)[0].trim();
  return characterCount(line) > 80 ? [...line].slice(0, 79).join("") + "…" : line;
}

/** The whole text of each of `records`, reading the chunks of the large ones. */
export async function readTexts(
  kv: Deno.Kv,
  sequenceId: string,
  records: ThoughtRecord[],
): Promise<string[]> {
  const partKeys = records.flatMap((r) =>
    Array.from({ length: r.parts ?? 0 }, (_, i) => thoughtPartKey(sequenceId, r.index, i))
  );
  const partEntries = await getAll<string>(kv, partKeys);
  const partText = new Map(partEntries.map((e) => [JSON.stringify(e.key), e.value ?? ""]));
  return records.map((record) => {
    let full = record.text ?? "";
    for (let i = 0; i < (record.parts ?? 0); i++) {
      full += partText.get(JSON.stringify(thoughtPartKey(sequenceId, record.index, i))) ?? "";
    }
    return full;
  });
}
