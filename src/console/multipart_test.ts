/** The streaming multipart reader: parts split at every chunk size, the file written exactly. */

import assert from "node:assert/strict";
import { readUpload, UploadRefused } from "./multipart.ts";

const BOUNDARY = "----b0und4ry";
const enc = new TextEncoder();

function body(file: string, withCsrf = true, end = true): Uint8Array {
  const csrf = withCsrf
    ? `--${BOUNDARY}\r\nContent-Disposition: form-data; name="csrf"\r\n\r\ntok\r\n`
    : "";
  return enc.encode(
    `${csrf}--${BOUNDARY}\r\nContent-Disposition: form-data; name="export"; filename="e.json"\r\n` +
      `Content-Type: application/json\r\n\r\n${file}\r\n` +
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="keep_hidden"\r\n\r\n1\r\n` +
      (end ? `--${BOUNDARY}--\r\n` : ""),
  );
}

function chunked(bytes: Uint8Array, size: number): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(c) {
      if (at >= bytes.length) return c.close();
      c.enqueue(bytes.slice(at, at + size));
      at += size;
    },
  });
}

async function read(bytes: Uint8Array, size: number, maxBytes = 1 << 20) {
  const path = await Deno.makeTempFile();
  try {
    using file = await Deno.open(path, { write: true });
    const upload = await readUpload(chunked(bytes, size), BOUNDARY, {
      fileField: "export",
      file,
      maxBytes,
      setting: "CONSOLE_IMPORT_MAX_BYTES",
      beforeFile(fields) {
        if (fields.get("csrf") !== "tok") throw new UploadRefused(403, "no csrf");
      },
    });
    return { upload, text: await Deno.readTextFile(path) };
  } finally {
    await Deno.remove(path);
  }
}

Deno.test("fields and the file are read whole whatever the chunk size", async () => {
  // Content that looks like a delimiter's start, CRLFs and dashes at its edges.
  const file = `\r\n--${BOUNDARY.slice(0, 6)}[{"a": "--\r\n"}]\r\n-`;
  for (const size of [1, 2, 3, 5, 16, 1000]) {
    const { upload, text } = await read(body(file), size);
    assert.equal(text, file, `chunk size ${size}`);
    assert.equal(upload.fileName, "e.json");
    assert.equal(upload.fileBytes, enc.encode(file).length);
    assert.deepEqual([...upload.fields], [["csrf", "tok"], ["keep_hidden", "1"]]);
  }
});

Deno.test("refused: no CSRF before the file, over the limit, cut short", async () => {
  await assert.rejects(
    () => read(body("x", false), 7),
    (e) => e instanceof UploadRefused && e.status === 403,
  );
  await assert.rejects(
    () => read(body("x".repeat(5000)), 100, 4096),
    (e) =>
      e instanceof UploadRefused && e.status === 413 && /CONSOLE_IMPORT_MAX_BYTES/.test(e.message),
  );
  await assert.rejects(
    () => read(body("x", true, false), 9),
    (e) => e instanceof UploadRefused && /cut short/.test(e.message),
  );
});
