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

/**
 * Reads the upload in `body`: fields into the result, the file field `fileField` into `file`
 * (at most `maxBytes`, `setting` named when it is over). `beforeFile` sees the fields read so far
 * and may refuse before the file is written.
 */
export async function readUpload(
  body: ReadableStream<Uint8Array>,
  boundary: string,
  options: {
    fileField: string;
    file: Deno.FsFile;
    maxBytes: number;
    setting: string;
    beforeFile(fields: Map<string, string>): void;
  },
): Promise<Upload> {
  const delimiter = encoder.encode(`\r\n--${boundary}`);
  const upload: Upload = { fields: new Map(), fileName: null, fileBytes: 0 };
  // A CRLF in front makes the first delimiter look like every other.
  let buf: Uint8Array = encoder.encode("\r\n");
  let state: "preamble" | "after" | "headers" | "content" | "done" = "preamble";
  let part: { name: string; fileName: string | null; text: Uint8Array } | null = null;
  const reader = body.getReader();
  const emit = async (bytes: Uint8Array) => {
    if (part === null || bytes.length === 0) return;
    if (part.fileName !== null && part.name === options.fileField) {
      upload.fileBytes += bytes.length;
      if (upload.fileBytes > options.maxBytes) {
        throw new UploadRefused(
          413,
          `The file is over ${options.maxBytes} bytes (${options.setting}).`,
        );
      }
      for (let at = 0; at < bytes.length;) at += await options.file.write(bytes.subarray(at));
    } else {
      part.text = concat(part.text, bytes);
      if (part.text.length > FIELD_MAX_BYTES) {
        throw new UploadRefused(400, `Field ${part.name} is too long.`);
      }
    }
  };
  for (;;) {
    const { done, value } = await reader.read();
    if (value) buf = concat(buf, value);
    for (let progressed = true; progressed && state !== "done";) {
      progressed = false;
      if (state === "preamble" || state === "content") {
        const at = indexOfBytes(buf, delimiter);
        if (at < 0) {
          const keep = Math.max(0, buf.length - delimiter.length);
          if (state === "content") await emit(buf.subarray(0, keep));
          buf = buf.slice(keep);
          break;
        }
        if (state === "content") {
          await emit(buf.subarray(0, at));
          finishPart(upload, part!);
          part = null;
        }
        buf = buf.slice(at + delimiter.length);
        state = "after";
        progressed = true;
      } else if (state === "after") {
        if (buf.length < 2) break;
        if (buf[0] === 45 && buf[1] === 45) state = "done"; // "--": the last delimiter
        else state = "headers";
        buf = buf.slice(2);
        progressed = true;
      } else if (state === "headers") {
        const end = indexOfBytes(buf, encoder.encode("\r\n\r\n"));
        if (end < 0) {
          if (buf.length > FIELD_MAX_BYTES) {
            throw new UploadRefused(400, "A part's headers are too long.");
          }
          break;
        }
        part = partOf(decoder.decode(buf.subarray(0, end)));
        if (part.fileName !== null && part.name === options.fileField) {
          options.beforeFile(upload.fields);
          upload.fileName = part.fileName;
        }
        buf = buf.slice(end + 4);
        state = "content";
        progressed = true;
      }
    }
    if (done) break;
  }
  if (state !== "done") {
    throw new UploadRefused(400, "The upload ended before its last part (cut short?).");
  }
  return upload;
}

function partOf(headers: string): { name: string; fileName: string | null; text: Uint8Array } {
  const disposition = headers.split("\r\n").find((h) => /^content-disposition:/i.test(h)) ?? "";
  const name = disposition.match(/\bname="([^"]*)"/i)?.[1] ?? "";
  const fileName = disposition.match(/\bfilename="([^"]*)"/i)?.[1] ?? null;
  return { name, fileName, text: new Uint8Array() };
}

function finishPart(
  upload: Upload,
  part: { name: string; fileName: string | null; text: Uint8Array },
) {
  if (part.fileName === null) upload.fields.set(part.name, decoder.decode(part.text));
}
