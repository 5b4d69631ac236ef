import assert from "node:assert/strict";
import { appendHandoff } from "./store_append.ts";
import { assertConsistent, input, LIMITS, withKv } from "../../tests/support/handoff_store.ts";
import { mergeHandoffs } from "./store_merge.ts";
import { listHandoffs, loadHandoff } from "./store_read.ts";
import { saveHandoff } from "./store_save.ts";

Deno.test("listHandoffs() pages newest first", async () => {
  await withKv(async (kv) => {
    for (let i = 0; i < 5; i++) await saveHandoff(kv, LIMITS, input({ key: `k${i}` }));
    const first = await listHandoffs(kv, { limit: 2 });
    assert.deepEqual(first.items.map((h) => h.key), ["k4", "k3"]);
    assert.equal(first.hasMore, true);
    const second = await listHandoffs(kv, { limit: 2, cursor: first.nextCursor! });
    assert.deepEqual(second.items.map((h) => h.key), ["k2", "k1"]);
    const third = await listHandoffs(kv, { limit: 2, cursor: second.nextCursor! });
    assert.deepEqual(third.items.map((h) => h.key), ["k0"]);
    assert.equal(third.hasMore, false);
  });
});

Deno.test("readers see the old or the new conversation, never a mix, while large saves land", async () => {
  await withKv(async (kv) => {
    const a = "## User\n" + "A".repeat(700_000);
    const b = "## User\n" + "ß".repeat(350_000);
    await saveHandoff(kv, LIMITS, input({ key: "k", conversation: a }));
    const writes = (async () => {
      for (let i = 0; i < 6; i++) {
        await saveHandoff(kv, LIMITS, input({ key: "k", conversation: i % 2 ? a : b }));
      }
      await appendHandoff(kv, LIMITS, "k", "## Assistant\ntail\n");
    })();
    const seen = new Set<string>();
    let done = false;
    writes.finally(() => done = true);
    while (!done) {
      const text = (await loadHandoff(kv, LIMITS, "k")).conversation;
      assert.ok(text === a || text === b || text === a + "## Assistant\ntail\n", "never a mix");
      seen.add(text.slice(8, 9));
    }
    await writes;
    assert.ok(seen.size >= 2, "reads interleaved with the writes and saw both versions");
    await assertConsistent(kv);
  });
});

Deno.test("a conversation starting with a byte order mark keeps it, through save, append and merge", async () => {
  await withKv(async (kv) => {
    const text = "\uFEFF## User\nexported from Notepad\n";
    await saveHandoff(kv, LIMITS, input({ key: "bom", conversation: text }));
    assert.equal((await loadHandoff(kv, LIMITS, "bom")).conversation, text);
    await appendHandoff(kv, LIMITS, "bom", "## Assistant\nok\n");
    assert.equal(
      (await loadHandoff(kv, LIMITS, "bom")).conversation,
      `${text}## Assistant\nok\n`,
    );
    await saveHandoff(kv, LIMITS, input({ key: "other" }));
    await mergeHandoffs(kv, LIMITS, { keys: ["other", "bom"], newKey: "both" });
    assert.ok((await loadHandoff(kv, LIMITS, "both")).conversation.includes(`===\n\n${text}`));
  });
});
