import assert from "node:assert/strict";
import { EncodedTexts, wireJson } from "./encoded_texts.ts";

// Like a get_state text: a few CJK headings, then many lines mostly in ASCII.
const LARGE = "後処理 — 北極星\n" +
  '  [cleanup] follow-up: "tidy" the notes\n\t\u2028 '.repeat(300);

Deno.test("EncodedTexts.json() writes the JSON of the answer, up to \\u escapes", () => {
  const texts = new EncodedTexts();
  const answers = [
    { jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text: LARGE }] } },
    {
      result: {
        content: [
          { type: "text", text: "short" },
          { type: "text", text: LARGE + "!" },
          { type: "text", text: LARGE },
        ],
        structuredContent: { a: 1, looksLikeASlot: '"0"', text: LARGE },
        isError: false,
      },
      jsonrpc: "2.0",
      id: "x",
    },
    { jsonrpc: "2.0", id: 2, result: { content: [{ type: "image", data: "AAAA" }] } },
    { jsonrpc: "2.0", id: 3, result: {} },
    { jsonrpc: "2.0", id: 4, error: { code: -32601, message: "Method not found" } },
    { jsonrpc: "2.0", method: "notifications/progress", params: { progress: 1 } },
  ];
  for (let round = 0; round < 2; round++) {
    for (const answer of answers) {
      const before = JSON.stringify(answer);
      assert.deepEqual(JSON.parse(texts.json(answer)), answer);
      assert.equal(JSON.stringify(answer), before, "the answer itself is left as it was");
    }
  }
});

Deno.test("EncodedTexts.json() writes small answers as JSON.stringify does and large texts in ASCII", () => {
  const texts = new EncodedTexts();
  const small = { jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text: "hé" }] } };
  assert.equal(texts.json(small), JSON.stringify(small));
  const large = (id: number) => ({
    jsonrpc: "2.0",
    id,
    result: { content: [{ type: "text", text: LARGE }] },
  });
  // All ASCII: Deno copies a one-byte answer as it is instead of transcoding it to UTF-8.
  // deno-lint-ignore no-control-regex
  assert.match(texts.json(large(1)), /^[\x00-\x7f]*$/);
  assert.equal(JSON.parse(texts.json(large(2))).id, 2);
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
