/**
 * Large answer texts, JSON-encoded once. `get_state` with hundreds of follow-ups answers the same
 * text of some 20 KB (the focus toolset caches it per project version) to every client, and V8
 * spends ~70 µs escaping it on every answer (its headings hold CJK characters, so it is a
 * two-byte string, which V8 serialises on a slow path), and Deno ~40 µs more transcoding the
 * answer to UTF-8. The encoding of the last few large texts is kept, by text, and joined to the
 * JSON of the rest of the answer (copying it into a `JSON.stringify` of the whole cost ~12 µs
 * more per 20 KB answer). A text with few characters beyond ASCII is kept with those written as
 * `\u` escapes, so that the answer is a one-byte string Deno copies as it is; one with many
 * keeps them (six bytes of escape instead of three of UTF-8 would nearly double a text written
 * in, say, Japanese). Either way the answer parses to what `JSON.stringify` writes.
 */

/** Texts shorter than this are cheap to encode and not kept. */
const MIN_CHARS = 4096;
/** Most characters of encoded text kept (about 2 bytes each, twice: text and encoding). */
const BUDGET_CHARS = 4_000_000;

/** A small cache of encoded large texts, for one process's answers. */
export class EncodedTexts {
  readonly #kept = new Map<string, { json: string; chars: number }>();
  #chars = 0;
  /**
   * Marks where a kept encoding goes: random, so that no text of an answer can hold it (it is
   * never written out).
   */
  readonly #slot = `${crypto.randomUUID()}:`;

  /**
   * The JSON of `message`: as `JSON.stringify` writes it, with each large
   * `result.content[].text` in its kept encoding. `message` is never changed.
   */
  json(message: unknown): string {
    const result = (message as { result?: { content?: unknown } } | null)?.result;
    const content = result?.content;
    if (!Array.isArray(content)) return JSON.stringify(message);
    let replaced: unknown[] | undefined;
    const encodings: string[] = [];
    content.forEach((block, i) => {
      const text = (block as { text?: unknown } | null)?.text;
      if (typeof text !== "string" || text.length < MIN_CHARS) return;
      replaced ??= [...content];
      replaced[i] = { ...block, text: `${this.#slot}${encodings.length}` };
      encodings.push(this.#encoded(text));
    });
    if (replaced === undefined) return JSON.stringify(message);
    let json = JSON.stringify({ ...(message as object), result: { ...result, content: replaced } });
    encodings.forEach((encoding, k) => {
      const slot = JSON.stringify(`${this.#slot}${k}`);
      const at = json.indexOf(slot);
      json = json.slice(0, at) + encoding + json.slice(at + slot.length);
    });
    return json;
  }

  #encoded(text: string): string {
    const kept = this.#kept.get(text);
    if (kept !== undefined) {
      // Most recently used last, so the budget drops the least recently used.
      this.#kept.delete(text);
      this.#kept.set(text, kept);
      return kept.json;
    }
    const json = wireJson(text);
    const entry = { json, chars: text.length + json.length };
    if (entry.chars > BUDGET_CHARS) return json;
    this.#kept.set(text, entry);
    this.#chars += entry.chars;
    for (const [key, old] of this.#kept) {
      if (this.#chars <= BUDGET_CHARS) break;
      this.#kept.delete(key);
      this.#chars -= old.chars;
    }
    return json;
  }
}

/** Most characters beyond ASCII, per character of JSON, that `wireJson` escapes (one in 20). */
const MOST_ESCAPED = 1 / 20;

/**
 * The JSON of `value` as Deno sends it at least cost: all in ASCII when few characters lie
 * beyond it (at most one in 20: the bytes grow by at most a seventh), else as `JSON.stringify`
 * writes it.
 */
export function wireJson(value: unknown): string {
  const json = JSON.stringify(value);
  let beyond = 0;
  for (const _ of json.matchAll(NOT_ASCII)) {
    if (++beyond > json.length * MOST_ESCAPED) return json;
  }
  return beyond === 0 ? json : json.replace(NOT_ASCII, unicodeEscape);
}

const NOT_ASCII = /[\u0080-\uffff]/g;

function unicodeEscape(char: string): string {
  return `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`;
}
