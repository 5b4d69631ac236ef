import assert from "node:assert/strict";
import { addComment, deleteComment } from "./store_comments.ts";
import {
  assertConsistent,
  input,
  LIMITS,
  rejectsWith,
  withKv,
} from "../../tests/support/handoff_store.ts";
import { loadHandoff } from "./store_read.ts";
import { saveHandoff } from "./store_save.ts";

Deno.test("comments: add, limit, size limit, delete", async () => {
  await withKv(async (kv) => {
    const limits = { ...LIMITS, commentsMax: 2 };
    await saveHandoff(kv, limits, input({ key: "a" }));
    const one = await addComment(kv, limits, "a", "first", "alice");
    await addComment(kv, limits, "a", "second");
    await rejectsWith(() => addComment(kv, limits, "a", "third"), "full", /already has 2 comments/);
    await rejectsWith(
      () => addComment(kv, limits, "a", "c".repeat(10 * 1024 + 1)),
      "too_large",
      /content is 10241 bytes/,
    );
    await rejectsWith(() => addComment(kv, limits, "a", "  "), "invalid", /must not be empty/);
    const loaded = await loadHandoff(kv, limits, "a");
    assert.deepEqual(loaded.comments.map((c) => c.content), ["first", "second"]);
    assert.equal(loaded.comments[0].author, "alice");
    const removed = await deleteComment(kv, limits, "a", one.comment.id);
    assert.equal(removed.count, 1);
    await rejectsWith(
      () => deleteComment(kv, limits, "a", one.comment.id),
      "not_found",
      /no comment with id/,
    );
    await assertConsistent(kv);
  });
});
