import assert from "node:assert/strict";
import { addComment } from "./store_comments.ts";
import { clearHandoffs, deleteHandoff } from "./store_delete.ts";
import {
  assertConsistent,
  census,
  input,
  LIMITS,
  rejectsWith,
  withKv,
} from "../../tests/support/handoff_store.ts";
import { loadHandoff } from "./store_read.ts";
import { saveHandoff } from "./store_save.ts";
import { handoffCountKey } from "./store_schema.ts";

Deno.test("deleteHandoff() and clearHandoffs() leave nothing behind", async () => {
  await withKv(async (kv) => {
    await saveHandoff(
      kv,
      LIMITS,
      input({ key: "big", conversation: "## User\n" + "x".repeat(900_000) }),
    );
    await addComment(kv, LIMITS, "big", "note");
    await saveHandoff(kv, LIMITS, input({ key: "small" }));
    const gone = await deleteHandoff(kv, LIMITS, "big");
    assert.equal(gone.key, "big");
    await rejectsWith(
      () => loadHandoff(kv, LIMITS, "big"),
      "not_found",
      /no handoff has key "big"/,
    );
    await assertConsistent(kv);
    for (let i = 0; i < 7; i++) await saveHandoff(kv, LIMITS, input({ key: `k${i}` }));
    assert.equal(await clearHandoffs(kv, LIMITS), 8);
    assert.deepEqual(await census(kv), { handoff_count: 1 });
    assert.equal((await kv.get(handoffCountKey())).value, 0);
  });
});
