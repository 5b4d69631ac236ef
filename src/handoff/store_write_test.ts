import assert from "node:assert/strict";
import { appendHandoff } from "./store_append.ts";
import { assertConsistent, input, LIMITS, withKv } from "../../tests/support/handoff_store.ts";
import { mergeHandoffs } from "./store_merge.ts";
import { saveHandoff } from "./store_save.ts";
import type { Progress } from "./store_schema.ts";

Deno.test("a progress report that fails after the commit does not report a landed write as failed", async () => {
  await withKv(async (kv) => {
    // E.g. the client went away: the last notification cannot be sent.
    const failsLast: Progress = (done, total) => {
      if (done === total && done > 0) throw new Error("not connected");
    };
    const saved = await saveHandoff(kv, LIMITS, input({ key: "a" }), failsLast);
    assert.equal(saved.handoff.key, "a");
    const appended = await appendHandoff(kv, LIMITS, "a", "## User\nmore\n", failsLast);
    assert.equal(appended.appendedBytes, 13);
    await saveHandoff(kv, LIMITS, input({ key: "b" }));
    const merged = await mergeHandoffs(kv, LIMITS, { keys: ["a", "b"], newKey: "ab" }, failsLast);
    assert.equal(merged.handoff.key, "ab");
    await assertConsistent(kv);
  });
});
