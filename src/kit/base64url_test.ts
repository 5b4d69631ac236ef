import assert from "node:assert/strict";
import { base64url, jsonToken, parseJsonToken } from "./base64url.ts";

Deno.test("base64url() gives RFC 4648's vectors without padding, - and _ for + and /", () => {
  const text = (s: string) => base64url(new TextEncoder().encode(s));
  // RFC 4648 §10, padding removed.
  assert.deepEqual(
    ["", "f", "fo", "foo", "foob", "fooba", "foobar"].map(text),
    ["", "Zg", "Zm8", "Zm9v", "Zm9vYg", "Zm9vYmE", "Zm9vYmFy"],
  );
  assert.equal(base64url(new Uint8Array([0xfb, 0xff])), "-_8");
  assert.equal(base64url(new Uint8Array([0xff, 0xff, 0xfe])), "___-");
  // A view into a larger buffer encodes only its own bytes.
  assert.equal(base64url(new Uint8Array([0, 0xfb, 0xff, 0]).subarray(1, 3)), "-_8");
});

Deno.test("jsonToken() round-trips through parseJsonToken(); other text is undefined", () => {
  const value = { after: "ü/+", n: 3 };
  assert.deepEqual(parseJsonToken(jsonToken(value)), value);
  assert.equal(parseJsonToken("not a token!"), undefined);
});
