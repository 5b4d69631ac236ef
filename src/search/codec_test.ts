import assert from "node:assert/strict";
import {
  lengthOf,
  packBlock,
  packPostings,
  type Posting,
  quantizeLength,
  readPostings,
  unpackBlock,
  wanted,
} from "./codec.ts";
import { addTerms, fold, parseQuery } from "./words.ts";

Deno.test("postings: a long list continues across parts, and every term reads back exactly", () => {
  const terms = new Map<string, { local: number; tf: number; dl: number }[]>();
  const long = Array.from(
    { length: 40_000 },
    (_, i) => ({ local: i * 3, tf: 1 + (i % 5), dl: i % 200 }),
  );
  terms.set("common", long);
  for (let t = 0; t < 2_000; t++) terms.set(`word${t}`, [{ local: t, tf: 2, dl: 9 }]);
  terms.set("commonplace", [{ local: 7, tf: 1, dl: 3 }]);
  const parts = packPostings(terms);
  assert.ok(parts.length > 1, "more than one part");
  for (const p of parts) assert.ok(p.length <= 61_000, `part of ${p.length} bytes`);
  const read = (term: string, prefix = false) => {
    const out: Posting[] = [];
    for (const p of parts) readPostings(p, 4, wanted(term, prefix), out);
    return out;
  };
  assert.deepEqual(
    read("common").map((p) => [p.local, p.tf, p.dl]),
    long.map((p) => [p.local, p.tf, p.dl]),
  );
  assert.deepEqual(read("word1999"), [{ seg: 4, local: 1999, tf: 2, dl: 9 }]);
  assert.equal(read("commonp").length, 0);
  assert.equal(read("commonp", true).length, 1);
  assert.equal(read("comm", true).length, 40_001);
});

Deno.test("lengths quantize to one byte, exact to 63 and within 3% above", () => {
  for (const n of [0, 1, 63, 64, 100, 1_000, 5_000]) {
    const q = quantizeLength(n);
    assert.ok(q >= 0 && q <= 255);
    assert.ok(Math.abs(lengthOf(q) - n) <= Math.max(0, n * 0.03), `${n} → ${lengthOf(q)}`);
  }
});

Deno.test("blocks deflate and inflate their passages unchanged", async () => {
  const docs = [{ n: 0, k: "message", r: ["d", "1"], p: 0, t: "T", x: "東京 ✓ text", m: {}, c: 1 }];
  assert.deepEqual(await unpackBlock(await packBlock(docs)), docs);
});

Deno.test("words: folding, dense sub-words, joined words, and the query's parts", () => {
  assert.equal(fold("Ｃａｆé ŒUVRE ﬁ"), "cafe œuvre fi");
  const terms = new Map<string, number>();
  addTerms("東京で明日の会議", 1, terms);
  for (const t of ["会議", "明日", "東京"]) assert.ok(terms.has(t), t);
  const q = parseQuery('"cafe opens" retr* 会議です node.js');
  assert.deepEqual(q.phrases, ["cafe opens"]);
  assert.deepEqual(q.terms.find((t) => t.term === "retr"), { term: "retr", prefix: true });
  assert.ok(q.terms.some((t) => t.term === "会議"));
  assert.ok(q.terms.some((t) => t.term.startsWith("node")));
});
