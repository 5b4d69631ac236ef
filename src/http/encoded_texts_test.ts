import assert from "node:assert/strict";
import { EncodedTexts, wireJson } from "./encoded_texts.ts";

// Like a get_state text: a few CJK headings, then many lines mostly in ASCII.
const LARGE = "後処理 — 北極星\n" +
  '  [cleanup] follow-up: "tidy" the notes\n\t\u2028 '.repeat(300);

Deno.test("EncodedTexts.prepare() yields the JSON of the original answer, up to \\u escapes", () => {
  const texts = new EncodedTexts();
  const answers = [
    { jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text: LARGE }] } },
    {
      jsonrpc: "2.0",
      id: "x",
      result: {
        content: [{ type: "text", text: "short" }, { type: "text", text: LARGE + "!" }],
        structuredContent: { a: 1 },
        isError: false,
      },
    },
    { jsonrpc: "2.0", id: 2, result: { content: [{ type: "image", data: "AAAA" }] } },
    { jsonrpc: "2.0", id: 3, result: {} },
    { jsonrpc: "2.0", id: 4, error: { code: -32601, message: "Method not found" } },
  ];
  for (let round = 0; round < 2; round++) {
    for (const answer of answers) {
      const before = JSON.stringify(answer);
      assert.deepEqual(JSON.parse(JSON.stringify(texts.prepare(answer))), answer);
      assert.equal(JSON.stringify(answer), before, "the answer itself is left as it was");
    }
  }
});

Deno.test("EncodedTexts.prepare() returns small answers as they are and keeps large texts", () => {
  const texts = new EncodedTexts();
  const small = { jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text: "hi" }] } };
  assert.equal(texts.prepare(small), small);
  const large = (id: number) => ({
    jsonrpc: "2.0",
    id,
    result: { content: [{ type: "text", text: LARGE }] },
  });
  const first = texts.prepare(large(1)) as { result: { content: { text: unknown }[] } };
  const second = texts.prepare(large(2)) as { result: { content: { text: unknown }[] } };
  assert.ok(JSON.isRawJSON(first.result.content[0].text));
  // All ASCII: Deno copies a one-byte answer as it is instead of transcoding it to UTF-8.
  // deno-lint-ignore no-control-regex
  assert.match(JSON.stringify(first), /^[\x00-\x7f]*$/);
  assert.equal(second.result.content[0].text, first.result.content[0].text, "encoded once");
});

Deno.test("wireJson() escapes a few characters beyond ASCII, surrogates too, but not a text of many", () => {
  const ascii = 'plain ascii, \\u00e9 "quoted" '.repeat(20);
  const few = { text: `後処理 🎯 é \u2028 \ud800 ${ascii}`, n: 1 };
  const json = wireJson(few);
  // deno-lint-ignore no-control-regex
  assert.match(json, /^[\x00-\x7f]*$/);
  assert.deepEqual(JSON.parse(json), few);
  const many = { text: "後処理は北極星達成後にのみ着手。".repeat(50) + ascii };
  assert.equal(wireJson(many), JSON.stringify(many), "left as JSON.stringify writes it");
  assert.equal(wireJson({ text: ascii }), JSON.stringify({ text: ascii }));
});
