import assert from "node:assert/strict";
import { AppError } from "./errors.ts";
import { bearerToken, cookieValue, escapeHtml, readText } from "./web.ts";

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

Deno.test("bearerToken() reads only a Bearer authorization header", () => {
  const req = (value?: string) =>
    new Request("http://x/", { headers: value ? { authorization: value } : {} });
  assert.equal(bearerToken(req("Bearer abc")), "abc");
  assert.equal(bearerToken(req("bearer abc")), "abc");
  assert.equal(bearerToken(req("Basic abc")), null);
  assert.equal(bearerToken(req()), null);
});

Deno.test("cookieValue() finds one cookie among several, and only by its whole name", () => {
  const req = new Request("http://x/", { headers: { cookie: "a=1; view_key=abc ;other=2" } });
  assert.equal(cookieValue(req, "view_key"), "abc");
  assert.equal(cookieValue(req, "key"), undefined);
  assert.equal(cookieValue(new Request("http://x/"), "a"), undefined);
});

Deno.test("escapeHtml() escapes markup and both quotes", () => {
  assert.equal(
    escapeHtml(`<a href="x" title='y'>&</a>`),
    "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;",
  );
});
