/** The streaming JSON reader: items across any chunk boundary, bad items, cut documents. */

import assert from "node:assert/strict";
import { type JsonItem, jsonItems, JsonStreamError } from "./json_stream.ts";

function streamOf(bytes: Uint8Array, size: number): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(c) {
      if (at >= bytes.length) return c.close();
      c.enqueue(bytes.slice(at, at + size));
      at += size;
    },
  });
}

async function items(text: string, size: number, max = 1 << 20): Promise<JsonItem[]> {
  const out: JsonItem[] = [];
  for await (const item of jsonItems(streamOf(new TextEncoder().encode(text), size), max)) {
    out.push(item);
  }
  return out;
}

const TRICKY = [
  { s: 'quote " and \\ backslash \\" ] } [ {', n: [1, [2, { x: "]" }]] },
  { s: "ünïcödé 🐍 \u2028", empty: {}, list: [] },
  "a bare string, with a comma",
  42,
  null,
  { nested: { deep: [[[["\\\\"]]]] } },
];

Deno.test("every item is read whole whatever the chunk size", async () => {
  const text = "\uFEFF" + JSON.stringify(TRICKY, null, 1);
  for (const size of [1, 2, 3, 7, 64, 100_000]) {
    const got = await items(text, size);
    assert.deepEqual(got.map((i) => i.value), TRICKY, `chunk size ${size}`);
    assert.deepEqual(got.map((i) => i.index), [0, 1, 2, 3, 4, 5]);
  }
});

Deno.test("a top-level object is one item; an empty array none", async () => {
  assert.deepEqual(await items('{"a": [1, {"b": "}"}]}', 3), [{
    index: 0,
    value: { a: [1, { b: "}" }] },
  }]);
  assert.deepEqual(await items(" [ ] ", 1), []);
});

Deno.test("a malformed item is named and the next one read", async () => {
  const got = await items('[{"a": 1}, {"b": tru}, {"c": 3}]', 5);
  assert.deepEqual(got[0].value, { a: 1 });
  assert.match(got[1].error!, /item 1 is not valid JSON/);
  assert.deepEqual(got[2].value, { c: 3 });
});

Deno.test("an item over the limit is named, not held", async () => {
  const got = await items(`[{"a": "${"x".repeat(5000)}"}, {"b": 2}]`, 100, 1024);
  assert.match(got[0].error!, /item 0 is \d+ bytes, over the limit \(CHATS_ITEM_MAX_BYTES=1024\)/);
  assert.deepEqual(got[1].value, { b: 2 });
});

Deno.test("a cut document yields the items before the cut, then fails naming where", async () => {
  const seen: unknown[] = [];
  await assert.rejects(
    async () => {
      for await (
        const i of jsonItems(streamOf(new TextEncoder().encode('[{"a":1},{"b":'), 4), 1 << 20)
      ) {
        seen.push(i.value);
      }
    },
    (e) => e instanceof JsonStreamError && /truncated: the JSON ends inside item 1/.test(e.message),
  );
  assert.deepEqual(seen, [{ a: 1 }]);
  await assert.rejects(() => items("hello", 2), /not JSON/);
  await assert.rejects(() => items("[1] 2", 2), /more data after the end/);
});
