/**
 * Splitting a byte stream into message lines no longer than a limit in bytes. A line over the
 * limit is not kept whole (a client could send gigabytes without a newline), only its first and
 * last bytes, enough to find the id of the request it carried so it can still be answered. (The
 * SDK's `ReadBuffer` limits its whole buffer instead, and drops every line in it when one is over.)
 */

/** How many characters of each end of a line over the limit are kept to find its id. */
const ID_WINDOW = 256;

/** A complete line: its text, or the id of a line over the limit (null when none was found). */
export type Line = { text: string } | { tooLong: true; id: string | number | null };

/** Collects the bytes of one line at a time. */
export class LineBuffer {
  /** Streaming, so a character split across chunks is joined. */
  readonly #decoder = new TextDecoder();
  /** The line's text so far; over the limit, only its last `ID_WINDOW` characters. */
  #text = "";
  /** Over the limit: the line's first `ID_WINDOW` characters. */
  #head = "";
  /** The line's size so far, in bytes. */
  #size = 0;

  constructor(readonly maxBytes: number) {}

  /**
   * Splits `chunk` at its newlines; returns the lines it completed. Keeps no reference to
   * `chunk`, so the caller may read into the same buffer again.
   */
  push(chunk: Uint8Array): Line[] {
    const lines: Line[] = [];
    let from = 0;
    // A newline byte never occurs inside a multi-byte UTF-8 character, so bytes split safely.
    for (let newline; (newline = chunk.indexOf(10, from)) !== -1; from = newline + 1) {
      this.#add(chunk.subarray(from, newline));
      lines.push(this.end());
    }
    this.#add(chunk.subarray(from));
    return lines;
  }

  /** Ends the line collected so far (the input ended without a newline) and returns it. */
  end(): Line {
    // Bytes of a character cut short are not carried into the next line.
    const text = this.#text + this.#decoder.decode();
    const line: Line = this.#size > this.maxBytes
      ? { tooLong: true, id: findId(this.#head, text) }
      : { text };
    this.#text = this.#head = "";
    this.#size = 0;
    return line;
  }

  #add(bytes: Uint8Array): void {
    this.#size += bytes.length;
    this.#text += this.#decoder.decode(bytes, { stream: true });
    if (this.#size <= this.maxBytes) return;
    // Over the limit: keep only the ends (a client could send gigabytes without a newline).
    this.#head ||= this.#text.slice(0, ID_WINDOW);
    this.#text = this.#text.slice(-ID_WINDOW);
  }
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

/** The request id found at either end of a line over the limit, without parsing the rest. */
function findId(head: string, tail: string): string | number | null {
  const match = head.match(ID_FIRST) ?? tail.match(ID_LAST);
  if (match === null) return null;
  try {
    return JSON.parse(match[1]);
  } catch {
    return null;
  }
}
