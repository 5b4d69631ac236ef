/**
 * A streaming reader of one JSON document: the items of a top-level array, one at a time, or a
 * top-level object as one item. Only the item being read is held in memory, so an export of
 * hundreds of megabytes is read in the memory of its largest conversation. A malformed item is
 * reported and the next one read; a document cut short ends with an error naming where.
 */

/** One item of the document: its value, or why it could not be read. */
export interface JsonItem {
  /** Position in the top-level array (0 for a top-level object). */
  index: number;
  value?: unknown;
  /** Set when the item is not valid JSON or is over the size limit. */
  error?: string;
}

/** The document is not JSON (`notJson`), or ends before it is complete. */
export class JsonStreamError extends Error {
  constructor(message: string, readonly notJson = false) {
    super(message);
  }
}

const BOM = [0xef, 0xbb, 0xbf];
const QUOTE = 34, BACKSLASH = 92, COMMA = 44;
const OPEN_OBJECT = 123, CLOSE_OBJECT = 125, OPEN_ARRAY = 91, CLOSE_ARRAY = 93;

/** Whitespace JSON allows between tokens. */
function isSpace(b: number): boolean {
  return b === 32 || b === 10 || b === 13 || b === 9;
}

/** The scanner's state across chunks. */
class Scanner {
  mode: "none" | "array" | "object" | "done" = "none";
  depth = 0;
  inString = false;
  escape = false;
  /** Collecting an item; `primitive` when it is a bare number, string or literal. */
  inItem = false;
  primitive = false;
  parts: Uint8Array[] = [];
  itemBytes = 0;
  index = 0;
  seenBytes = 0;
  readonly out: JsonItem[] = [];
  readonly decoder = new TextDecoder("utf-8", { fatal: true });
  constructor(readonly maxItemBytes: number) {}

  /** The depth between items: 1 inside the top array, 0 around a top object. */
  get base(): number {
    return this.mode === "array" ? 1 : 0;
  }

  /** Where the item being collected starts in the current chunk. */
  start = 0;
  /** The next backslash at or after the scan position in the current chunk (its length: none). */
  nextBackslash = -1;

  /** Scans one chunk; returns the items it completed. */
  feed(chunk: Uint8Array): JsonItem[] {
    this.out.length = 0;
    this.start = 0;
    this.nextBackslash = -1;
    const n = chunk.length;
    for (let i = 0; i < n;) {
      if (this.inString) {
        i = this.skipString(chunk, i);
        continue;
      }
      const b = chunk[i];
      if (!isSpace(b)) this.token(chunk, b, i);
      i++;
    }
    if (this.inItem) this.keep(chunk.subarray(this.start, n));
    this.seenBytes += n;
    return this.out;
  }

  /** Moves past string bytes from `i` (by indexOf, not byte by byte); returns the next position. */
  skipString(chunk: Uint8Array, i: number): number {
    if (this.escape) {
      this.escape = false;
      return i + 1;
    }
    const n = chunk.length;
    if (this.nextBackslash < i) {
      const at = chunk.indexOf(BACKSLASH, i);
      this.nextBackslash = at < 0 ? n : at;
    }
    const quote = chunk.indexOf(QUOTE, i);
    if (this.nextBackslash < n && (quote < 0 || this.nextBackslash < quote)) {
      this.escape = true;
      return this.nextBackslash + 1;
    }
    if (quote < 0) return n;
    this.inString = false;
    return quote + 1;
  }

  /** One byte outside strings and whitespace, at `i`. */
  token(chunk: Uint8Array, b: number, i: number): void {
    if (this.mode === "none") return this.opening(b, i);
    if (this.mode === "done") {
      throw new JsonStreamError("more data after the end of the JSON document");
    }
    if (this.depth === this.base && this.mode === "array") return this.between(chunk, b, i);
    if (b === OPEN_OBJECT || b === OPEN_ARRAY) this.depth++;
    else if (b === QUOTE) this.inString = true;
    else if (b === CLOSE_OBJECT || b === CLOSE_ARRAY) {
      this.depth--;
      if (this.depth === this.base) {
        this.finish(chunk, this.start, i + 1);
        if (this.mode === "object") this.mode = "done";
      }
    }
  }

  /** The document's first byte (after a byte order mark): `[` or `{`. */
  opening(b: number, i: number): void {
    if (this.seenBytes + i < 3 && b === BOM[this.seenBytes + i]) return; // split or not
    if (b === OPEN_ARRAY) {
      this.mode = "array";
      this.depth = 1;
    } else if (b === OPEN_OBJECT) {
      this.mode = "object";
      this.depth = 1;
      this.start = this.begin(i);
    } else {
      throw new JsonStreamError("not JSON: it does not start with [ or {", true);
    }
  }

  /** A byte between the top array's items: a separator, the end, or an item's start. */
  between(chunk: Uint8Array, b: number, i: number): void {
    if (this.inItem) { // a primitive item ends at , or ]
      if (b === COMMA || b === CLOSE_ARRAY) this.finish(chunk, this.start, i);
      if (b === CLOSE_ARRAY) this.mode = "done";
    } else if (b === CLOSE_ARRAY) {
      this.mode = "done";
    } else if (b !== COMMA) {
      this.start = this.begin(i);
      if (b === OPEN_OBJECT || b === OPEN_ARRAY) this.depth++;
      else {
        this.primitive = true;
        if (b === QUOTE) this.inString = true;
      }
    }
  }

  begin(at: number): number {
    this.inItem = true;
    this.parts = [];
    this.itemBytes = 0;
    return at;
  }

  keep(part: Uint8Array): void {
    this.itemBytes += part.byteLength;
    if (this.itemBytes > this.maxItemBytes) {
      this.parts = []; // counted, no longer held
    } else if (part.byteLength > 0) this.parts.push(part.slice());
  }

  finish(chunk: Uint8Array, start: number, end: number): void {
    this.keep(chunk.subarray(start, end));
    this.inItem = false;
    this.primitive = false;
    const index = this.index++;
    if (this.itemBytes > this.maxItemBytes) {
      this.out.push({
        index,
        error:
          `item ${index} is ${this.itemBytes} bytes, over the limit (CHATS_ITEM_MAX_BYTES=${this.maxItemBytes})`,
      });
      return;
    }
    const bytes = this.parts.length === 1 ? this.parts[0] : concat(this.parts, this.itemBytes);
    this.parts = [];
    try {
      this.out.push({ index, value: JSON.parse(this.decoder.decode(bytes)) });
    } catch (error) {
      this.out.push({
        index,
        error: `item ${index} is not valid JSON: ${(error as Error).message}`,
      });
    }
  }

  end(): void {
    if (this.mode === "none") throw new JsonStreamError("empty: no JSON document", true);
    if (this.mode !== "done") {
      throw new JsonStreamError(
        `truncated: the JSON ends inside item ${this.index} after ${this.seenBytes} bytes`,
      );
    }
  }
}

function concat(parts: Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

/**
 * The items of the JSON document in `stream`, read as they arrive; `onBytes` hears every chunk's
 * size. Throws `JsonStreamError` when the stream is not JSON or ends early (items before were
 * already yielded).
 */
export async function* jsonItems(
  stream: ReadableStream<Uint8Array>,
  maxItemBytes: number,
  onBytes?: (bytes: number) => void,
): AsyncGenerator<JsonItem> {
  const scanner = new Scanner(maxItemBytes);
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      onBytes?.(value.byteLength);
      yield* scanner.feed(value).slice();
    }
    scanner.end();
  } finally {
    await reader.cancel().catch(() => {});
  }
}
