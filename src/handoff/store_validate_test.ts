import assert from "node:assert/strict";
import { LIMITS, rejectsWith, withKv } from "../../tests/support/handoff_store.ts";
import { loadHandoff } from "./store_read.ts";

Deno.test("error messages quote bad input without splitting an emoji", async () => {
  await withKv(async (kv) => {
    const key = `${"k".repeat(39)}🎌🎌`;
    await rejectsWith(() => loadHandoff(kv, LIMITS, key), "invalid", /outside A-Z/);
    await loadHandoff(kv, LIMITS, key).catch((error: Error) => {
      assert.ok(error.message.isWellFormed(), error.message);
    });
  });
});
