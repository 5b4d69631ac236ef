import assert from "node:assert/strict";
import { isUlid, randomToken, ulid } from "./ids.ts";

Deno.test("ulid() is a sortable ULID, monotonic within one millisecond", () => {
  const ids = Array.from({ length: 1000 }, () => ulid(1_700_000_000_000));
  assert.ok(ids.every(isUlid));
  assert.deepEqual([...ids].sort(), ids);
  assert.equal(new Set(ids).size, ids.length);
  assert.ok(ulid(1_700_000_000_001) > ids.at(-1)!);
});

Deno.test("randomToken() gives URL-safe text of the requested randomness", () => {
  const token = randomToken(32);
  assert.match(token, /^[A-Za-z0-9_-]{43}$/);
  assert.notEqual(token, randomToken(32));
});
