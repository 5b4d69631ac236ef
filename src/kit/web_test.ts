import assert from "node:assert/strict";
import { AppError } from "./kv.ts";
import { readText } from "./web.ts";

function post(body: BodyInit, headers: Record<string, string> = {}): Request {
  return new Request("http://x/", { method: "POST", body, headers });
}

function stream(...parts: string[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(c) {
      for (const p of parts) c.enqueue(new TextEncoder().encode(p));
      c.close();
    },
  });
}

Deno.test("readText() reads a body with or without a declared length, up to the limit", async () => {
  assert.equal(await readText(post("héllo", { "content-length": "6" }), 6), "héllo");
  assert.equal(await readText(post(stream("hé", "llo")), 6), "héllo");
  for (const req of [post("1234567", { "content-length": "7" }), post(stream("1234", "567"))]) {
    await assert.rejects(
      readText(req, 6),
      (e) => e instanceof AppError && e.kind === "too_large" && /6 bytes/.test(e.message),
    );
  }
  await assert.rejects(
    readText(post(new Uint8Array([0xff, 0xfe]), { "content-length": "2" }), 6),
    (e) => e instanceof AppError && e.kind === "invalid" && /UTF-8/.test(e.message),
  );
  // One decoder serves every request: a refused body leaves nothing behind for the next.
  assert.equal(await readText(post("é", { "content-length": "2" }), 6), "é");
  await assert.rejects(readText(post(new Uint8Array([0xe2, 0x82]), { "content-length": "2" }), 6));
  assert.equal(await readText(post("ok", { "content-length": "2" }), 6), "ok");
});
