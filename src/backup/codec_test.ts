import assert from "node:assert/strict";
import { everyType } from "../../tests/support/kv_values.ts";
import { decodeHeader, decodeLine, encodeEntry, endLine, headerLine, LineError } from "./codec.ts";

Deno.test("encodeEntry() and decodeLine() round-trip every type KV holds, in keys and values", () => {
  const key: Deno.KvKey = ["a", 1, -2.5, 7n, new Uint8Array([1, 2]), true, false];
  const value = everyType();
  const line = encodeEntry(key, value);
  assert.doesNotMatch(line, /\n/);
  const decoded = decodeLine(line, 5);
  assert.ok(!("end" in decoded));
  assert.deepEqual(decoded.key, key);
  assert.deepEqual(decoded.value, value);
  const v = decoded.value as Record<string, unknown>;
  assert.ok(Object.is((v.specials as number[])[3], -0));
  assert.ok(v.bytes instanceof Uint8Array);
  assert.ok(v.ints instanceof Int32Array);
  assert.ok("missing" in v);
  assert.equal(encodeEntry(decoded.key, decoded.value), line, "encoding is stable");
});

Deno.test("encodeEntry() keeps a top-level Deno.KvU64 and plain values as plain JSON", () => {
  const decoded = decodeLine(encodeEntry(["n"], new Deno.KvU64(18446744073709551615n)), 2);
  assert.ok(!("end" in decoded) && decoded.value instanceof Deno.KvU64);
  assert.equal((decoded.value as Deno.KvU64).value, 18446744073709551615n);
  assert.equal(
    encodeEntry(["k"], { a: [1, "x", null] }),
    '{"key":["k"],"value":{"a":[1,"x",null]}}',
  );
});

Deno.test("encodeEntry() refuses a value it cannot encode, naming the key", () => {
  assert.throws(() => encodeEntry(["e", 1n], new Error("x")), /key \["e","1n"\]: a Error value/);
});

Deno.test("decodeLine() refuses cut, edited or foreign lines with their line number", () => {
  const line = encodeEntry(["k"], { a: 1n });
  const cases: [string, RegExp][] = [
    [line.slice(0, -3), /^line 9: not valid JSON/],
    ['{"key":["k"]}', /^line 9: expected exactly the fields key and value, got key/],
    ['{"key":[],"value":1}', /^line 9: key must be a non-empty array/],
    ['{"key":[{"$date":0}],"value":1}', /^line 9: a key part must be/],
    ['{"key":["k"],"value":{"$bigint":"1.5"}}', /^line 9: \$bigint holds a malformed value/],
    ['{"key":["k"],"value":{"$nope":1}}', /^line 9: unknown tag \$nope/],
    ['{"key":["k"],"value":{"$bytes":"***"}}', /^line 9: malformed base64/],
    ['{"end":{"entries":-1}}', /^line 9: the end line must be/],
    ["[1]", /^line 9: expected an object/],
  ];
  for (const [text, error] of cases) {
    assert.throws(
      () => decodeLine(text, 9),
      (e) => e instanceof LineError && error.test(e.message),
    );
  }
  assert.deepEqual(decodeLine(endLine(3), 4), { end: 3 });
  decodeHeader(headerLine());
  assert.throws(
    () => decodeHeader('{"format":"other"}'),
    /LineError: line 1: not a handoff-mcp export/,
  );
});
