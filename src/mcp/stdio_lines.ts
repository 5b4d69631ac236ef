/**
 * Splitting a byte stream into message lines no longer than a limit in bytes. A line over the
 * limit is not kept whole (a client could send gigabytes without a newline), only its first and
 * last bytes, enough to find the id of the request it carried so it can still be answered.
 */

/** How many bytes of each end of a line over the limit are kept to find its id. */
const ID_WINDOW = 256;

/** A complete line: its text, or the id of a line over the limit (null when none was found). */
export type Line = { text: string } | { tooLong: true; id: string | number | null };

/** Collects the bytes of one line at a time. */
export class LineBuffer {
  readonly #maxBytes: number;
  #parts: Uint8Array[] = [];
  #size = 0;
  /** The first and the last `ID_WINDOW` bytes of a line over the limit. */
  #head: Uint8Array | undefined;
  #tail = new Uint8Array(0);
  readonly #decoder = new TextDecoder();

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /**
   * Splits `chunk` at its newlines; returns the lines it completed. Keeps no reference to
   * `chunk`, so the caller may read into the same buffer again.
   */
  push(chunk: Uint8Array): Line[] {
    const lines: Line[] = [];
    let from = 0;
    let newline;
    // A newline byte never occurs inside a multi-byte UTF-8 character, so bytes split safely.
    while ((newline = chunk.indexOf(10, from)) !== -1) {
      if (this.#size === 0 && this.#head === undefined && newline - from <= this.#maxBytes) {
        // The usual case, a whole line in one chunk: decoded where it lies, never copied.
        lines.push({ text: this.#decoder.decode(chunk.subarray(from, newline)) });
      } else {
        this.#add(chunk.subarray(from, newline), false);
        lines.push(this.end());
      }
      from = newline + 1;
    }
    this.#add(chunk.subarray(from), true);
    return lines;
  }

  /** Ends the line collected so far (the input ended without a newline) and returns it. */
  end(): Line {
    let line: Line;
    if (this.#head !== undefined) {
      line = { tooLong: true, id: findId(this.#head, this.#tail) };
    } else {
      line = { text: this.#decoder.decode(concat(this.#parts)) };
    }
    this.#parts = [];
    this.#size = 0;
    this.#head = undefined;
    this.#tail = new Uint8Array(0);
    return line;
  }

  /** Adds `bytes` to the line; `keep` when they must outlive the chunk they are a view of. */
  #add(bytes: Uint8Array, keep: boolean): void {
    if (bytes.length === 0) return;
    this.#size += bytes.length;
    if (this.#head === undefined) {
      this.#parts.push(keep ? bytes.slice() : bytes);
      if (this.#size <= this.#maxBytes) return;
      // Over the limit: keep only the ends from now on.
      const whole = concat(this.#parts);
      this.#parts = [];
      this.#head = whole.slice(0, ID_WINDOW);
      this.#tail = whole.slice(-ID_WINDOW);
    } else {
      this.#tail = concat([this.#tail, bytes.subarray(-ID_WINDOW)]).slice(-ID_WINDOW);
    }
  }
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const whole = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
  let at = 0;
  for (const part of parts) {
    whole.set(part, at);
    at += part.length;
  }
  return whole;
}

const ID = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`;
/** An id as the first member (after `jsonrpc`, if that comes first), as most clients write it. */
const ID_FIRST = new RegExp(
  String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${ID}\s*[,}]`,
);
/**
 * An id as the last member, as the MCP SDK writes it. Only a member of the outermost object can
 * be followed by a single `}` that ends the line.
 */
const ID_LAST = new RegExp(String.raw`,\s*"id"\s*:\s*${ID}\s*\}\s*$`);

/** The request id found at either end of a message, without parsing the rest of it. */
function findId(head: Uint8Array, tail: Uint8Array): string | number | null {
  const decoder = new TextDecoder();
  const match = decoder.decode(head).match(ID_FIRST) ?? decoder.decode(tail).match(ID_LAST);
  if (match === null) return null;
  try {
    return JSON.parse(match[1]);
  } catch {
    return null;
  }
}
