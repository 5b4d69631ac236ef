import assert from "node:assert/strict";
import { roughSize } from "./kv_limits.ts";
import { keyText } from "./key_text.ts";

Deno.test("keyText tells keys apart that a naive join would not", () => {
  const keys: Deno.KvKey[] = [
    ["a", "b"],
    ["a\u0000b"],
    ["ab"],
    [1],
    ["1"],
    [1n],
    [true],
    ["true"],
    [new Uint8Array([1, 2])],
    ["1,2"],
  ];
  assert.equal(new Set(keys.map(keyText)).size, keys.length);
  assert.equal(keyText(["a", 1]), keyText(["a", 1]));
});

Deno.test("roughSize is an upper estimate and stops at the cap", () => {
  assert.ok(roughSize("abc", 1000) >= 6);
  assert.ok(roughSize({ a: "x".repeat(100), b: [1, 2, 3] }, 10_000) >= 200);
  assert.ok(roughSize(new Uint8Array(5000), 10_000) >= 5000);
  const huge = Array.from({ length: 100_000 }, () => "long text");
  assert.ok(roughSize(huge, 1000) > 1000);
});
