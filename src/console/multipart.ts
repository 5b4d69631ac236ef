/**
 * A `multipart/form-data` upload read as it arrives: small fields kept as text, the one file
 * written to disk chunk by chunk, so an export of hundreds of megabytes is never held in memory.
 * Fields before the file (the CSRF token) are checked before a byte of it is written.
 */

/** What an upload held: its small fields, and where its file went. */
export interface Upload {
  fields: Map<string, string>;
  /** The file's name as the browser sent it; null when no file was sent. */
  fileName: string | null;
  fileBytes: number;
}

/** Why an upload was refused, with the HTTP status to answer. */
export class UploadRefused extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

/** Largest field besides the file, in bytes. */
const FIELD_MAX_BYTES = 4096;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Index of `needle` in `hay` from `from`, or -1. */
function indexOfBytes(hay: Uint8Array, needle: Uint8Array, from = 0): number {
  const first = needle[0];
  for (
    let i = hay.indexOf(first, from);
    i >= 0 && i <= hay.length - needle.length;
    i = hay.indexOf(first, i + 1)
  ) {
    let j = 1;
    while (j < needle.length && hay[i + j] === needle[j]) j++;
    if (j === needle.length) return i;
  }
  return -1;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** The boundary of a `multipart/form-data` content type, or null. */
export function boundaryOf(contentType: string | null): string | null {
  if (!contentType || !/^multipart\/form-data/i.test(contentType)) return null;
  const m = contentType.match(/boundary=(?:"([^"]+)"|([^;\s]+))/i);
  return m ? (m[1] ?? m[2]) : null;
}

/** What `readUpload` writes where, and its limit. */
export interface UploadOptions {
  fileField: string;
  file: Deno.FsFile;
  maxBytes: number;
  setting: string;
  beforeFile(fields: Map<string, string>): void;
}

type Part = { name: string; fileName: string | null; text: Uint8Array };

/** The parser's state between chunks: bytes not yet consumed, and where in the body it is. */
class UploadParser {
  readonly upload: Upload = { fields: new Map(), fileName: null, fileBytes: 0 };
  readonly delimiter: Uint8Array;
  // A CRLF in front makes the first delimiter look like every other.
  buf: Uint8Array = encoder.encode("\r\n");
  state: "preamble" | "after" | "headers" | "content" | "done" = "preamble";
  part: Part | null = null;

  constructor(boundary: string, readonly options: UploadOptions) {
    this.delimiter = encoder.encode(`\r\n--${boundary}`);
  }

  /** Takes one chunk and consumes all it can. */
  async push(chunk: Uint8Array): Promise<void> {
    this.buf = concat(this.buf, chunk);
    while (this.state !== "done" && await this.step());
  }

  /** One move of the state machine; false when it needs more bytes. */
  async step(): Promise<boolean> {
    if (this.state === "after") {
      if (this.buf.length < 2) return false;
      this.state = this.buf[0] === 45 && this.buf[1] === 45 ? "done" : "headers"; // "--" ends
      this.buf = this.buf.slice(2);
      return true;
    }
    if (this.state === "headers") return this.headers();
    const at = indexOfBytes(this.buf, this.delimiter);
    if (at < 0) {
      // Keep what may be the start of a delimiter; the rest of the content goes out now.
      const keep = Math.max(0, this.buf.length - this.delimiter.length);
      if (this.state === "content") await this.emit(this.buf.subarray(0, keep));
      this.buf = this.buf.slice(keep);
      return false;
    }
    if (this.state === "content") {
      await this.emit(this.buf.subarray(0, at));
      if (this.part!.fileName === null) {
        this.upload.fields.set(this.part!.name, decoder.decode(this.part!.text));
      }
      this.part = null;
    }
    this.buf = this.buf.slice(at + this.delimiter.length);
    this.state = "after";
    return true;
  }

  headers(): boolean {
    const end = indexOfBytes(this.buf, encoder.encode("\r\n\r\n"));
    if (end < 0) {
      if (this.buf.length > FIELD_MAX_BYTES) {
        throw new UploadRefused(400, "A part's headers are too long.");
      }
      return false;
    }
    this.part = partOf(decoder.decode(this.buf.subarray(0, end)));
    if (this.isFile(this.part)) {
      this.options.beforeFile(this.upload.fields);
      this.upload.fileName = this.part.fileName;
    }
    this.buf = this.buf.slice(end + 4);
    this.state = "content";
    return true;
  }

  isFile(part: Part): boolean {
    return part.fileName !== null && part.name === this.options.fileField;
  }

  /** Content of the current part: to the file, or to the field's text. */
  async emit(bytes: Uint8Array): Promise<void> {
    const part = this.part;
    if (part === null || bytes.length === 0) return;
    if (!this.isFile(part)) {
      part.text = concat(part.text, bytes);
      if (part.text.length > FIELD_MAX_BYTES) {
        throw new UploadRefused(400, `Field ${part.name} is too long.`);
      }
      return;
    }
    const { maxBytes, setting, file } = this.options;
    this.upload.fileBytes += bytes.length;
    if (this.upload.fileBytes > maxBytes) {
      throw new UploadRefused(413, `The file is over ${maxBytes} bytes (${setting}).`);
    }
    for (let at = 0; at < bytes.length;) at += await file.write(bytes.subarray(at));
  }
}

/**
 * Reads the upload in `body`: fields into the result, the file field `fileField` into `file`
 * (at most `maxBytes`, `setting` named when it is over). `beforeFile` sees the fields read so far
 * and may refuse before the file is written.
 */
export async function readUpload(
  body: ReadableStream<Uint8Array>,
  boundary: string,
  options: UploadOptions,
): Promise<Upload> {
  const parser = new UploadParser(boundary, options);
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      await parser.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  if (parser.state !== "done") {
    throw new UploadRefused(400, "The upload ended before its last part (cut short?).");
  }
  return parser.upload;
}

function partOf(headers: string): Part {
  const disposition = headers.split("\r\n").find((h) => /^content-disposition:/i.test(h)) ?? "";
  const name = disposition.match(/\bname="([^"]*)"/i)?.[1] ?? "";
  const fileName = disposition.match(/\bfilename="([^"]*)"/i)?.[1] ?? null;
  return { name, fileName, text: new Uint8Array() };
}
