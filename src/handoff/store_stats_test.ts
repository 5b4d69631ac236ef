import assert from "node:assert/strict";
import { addComment } from "./store_comments.ts";
import { input, LIMITS, withKv } from "../../tests/support/handoff_store.ts";
import { saveHandoff } from "./store_save.ts";
import { handoffStats } from "./store_stats.ts";

Deno.test("handoffStats() counts, sums bytes and reports limits", async () => {
  await withKv(async (kv) => {
    const limits = { ...LIMITS, maxHandoffs: 4 };
    await saveHandoff(kv, limits, input({ key: "a", conversation: "## User\n12345\n" }));
    await saveHandoff(kv, limits, input({ key: "b", status: "completed" }));
    await addComment(kv, limits, "b", "x");
    const stats = await handoffStats(kv, limits);
    assert.equal(stats.count, 2);
    assert.equal(stats.fullness, 0.5);
    assert.equal(stats.byStatus.completed, 1);
    assert.equal(stats.totalComments, 1);
    assert.equal(stats.totalBytes, 14 + new TextEncoder().encode(input().conversation).byteLength);
    assert.equal(stats.oldest?.key, "a");
    assert.equal(stats.newest?.key, "b");
    assert.equal(stats.limits.maxHandoffs, 4);
    assert.equal(stats.imported, 0);
    await saveHandoff(kv, limits, {
      ...input({ key: "chatgpt-1" }),
      imported: { source: "chatgpt", digest: "d", createdAt: null, updatedAt: null },
    });
    const after = await handoffStats(kv, limits);
    assert.deepEqual([after.count, after.imported], [2, 1]);
  });
});
