import assert from "node:assert/strict";
import { THINKING_ERRORS } from "./store_errors.ts";

Deno.test("every error code has a kind", () => {
  for (const [code, kind] of Object.entries(THINKING_ERRORS)) {
    assert.match(code, /^[A-Z_]+$/);
    assert.ok(["invalid", "not_found", "too_large", "full", "busy"].includes(kind));
  }
});
