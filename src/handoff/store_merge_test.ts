import assert from "node:assert/strict";
import { addComment } from "./store_comments.ts";
import { listHandoffs, loadHandoff } from "./store_read.ts";
import { saveHandoff, type SaveInput } from "./store_save.ts";
import { handoffLeaseKey } from "./store_schema.ts";
import { mergeHandoffs } from "./store_merge.ts";
import {
  assertConsistent,
  LIMITS,
  rejectsWith,
  withKv,
} from "../../tests/support/handoff_store.ts";

function input(key: string, overrides: Partial<SaveInput> = {}): SaveInput {
  return {
    key,
    summary: `Summary of ${key}`,
    conversation: `## User\nquestion in ${key}\n\n## Assistant\nanswer in ${key}`,
    ...overrides,
  };
}

async function snapshot(kv: Deno.Kv): Promise<string> {
  const all = await Array.fromAsync(kv.list({ prefix: [] }));
  return JSON.stringify(all.map((e) => [e.key, e.versionstamp]));
}

/** Every kept key belongs to a record, the count is right, and no merge lease is left. */
async function assertNoOrphans(kv: Deno.Kv): Promise<void> {
  await assertConsistent(kv);
  assert.equal((await Array.fromAsync(kv.list({ prefix: ["handoff_lease"] }))).length, 0);
}

Deno.test("mergeHandoffs() joins parts with source markers, unites tags, carries comments", async () => {
  await withKv(async (kv) => {
    await saveHandoff(kv, LIMITS, input("a", { tags: ["x", "y"], fromAi: "Claude Desktop" }));
    await saveHandoff(kv, LIMITS, input("b", { tags: ["y", "z"], fromAi: "Cursor" }));
    await addComment(kv, LIMITS, "a", "note on a");
    await addComment(kv, LIMITS, "b", "note on b");
    const steps: number[] = [];
    const res = await mergeHandoffs(
      kv,
      LIMITS,
      { keys: ["b", "a"], newKey: "ab" },
      (done) => void steps.push(done),
    );
    assert.equal(res.handoff.key, "ab");
    assert.deepEqual(res.deletedSources, []);
    assert.deepEqual(res.handoff.tags, ["y", "z", "x"]);
    assert.equal(res.handoff.fromAi, "Cursor, Claude Desktop");
    assert.deepEqual(res.handoff.mergedFrom, ["b", "a"]);
    assert.equal(res.carriedComments, 2);
    assert.ok(steps.length >= 3);
    const loaded = await loadHandoff(kv, LIMITS, "ab");
    const text = loaded.conversation;
    assert.match(text, /^=== handoff_merge: part 1 of 2: handoff "b"/);
    assert.ok(text.indexOf('part 2 of 2: handoff "a"') > text.indexOf("answer in b"));
    assert.equal(loaded.handoff.messageCount, 4);
    assert.deepEqual(loaded.comments.map((c) => c.content).sort(), ["note on a", "note on b"]);
    assert.equal((await listHandoffs(kv, { limit: 10 })).items.length, 3, "sources kept");
    await assertNoOrphans(kv);
  });
});

Deno.test("mergeHandoffs() chronological orders parts by creation time", async () => {
  await withKv(async (kv) => {
    await saveHandoff(kv, LIMITS, input("first"));
    await saveHandoff(kv, LIMITS, input("second"));
    const res = await mergeHandoffs(kv, LIMITS, {
      keys: ["second", "first"],
      strategy: "chronological",
    });
    assert.match(res.handoff.key, /^handoff-/);
    assert.deepEqual(res.handoff.mergedFrom, ["first", "second"]);
    await assertNoOrphans(kv);
  });
});

Deno.test("mergeHandoffs() with delete_sources removes the sources, or replaces one", async () => {
  await withKv(async (kv) => {
    for (const k of ["a", "b", "c"]) await saveHandoff(kv, LIMITS, input(k));
    await addComment(kv, LIMITS, "a", "on a");
    await addComment(kv, LIMITS, "c", "on c");
    const res = await mergeHandoffs(kv, LIMITS, {
      keys: ["a", "b", "c"],
      newKey: "a",
      deleteSources: true,
      newTitle: "All of it",
      newSummary: "Everything merged",
    });
    assert.equal(res.replacedSource, true);
    assert.deepEqual(res.deletedSources, ["b", "c"]);
    const keys = (await listHandoffs(kv, { limit: 10 })).items.map((h) => h.key);
    assert.deepEqual(keys, ["a"]);
    const loaded = await loadHandoff(kv, LIMITS, "a");
    assert.equal(loaded.handoff.title, "All of it");
    assert.equal(loaded.handoff.summary, "Everything merged");
    assert.deepEqual(loaded.comments.map((c) => c.content).sort(), ["on a", "on c"]);
    await assertNoOrphans(kv);
  });
});

Deno.test("a merge with an unknown, repeated or bad key changes nothing", async () => {
  await withKv(async (kv) => {
    await saveHandoff(kv, LIMITS, input("a"));
    await saveHandoff(kv, LIMITS, input("b"));
    const before = await snapshot(kv);
    await rejectsWith(
      () => mergeHandoffs(kv, LIMITS, { keys: ["a", "nope"], deleteSources: true }),
      "not_found",
      /no handoff has key "nope".*Nothing was merged/,
    );
    await rejectsWith(
      () => mergeHandoffs(kv, LIMITS, { keys: ["a", "b", "a"] }),
      "invalid",
      /key "a" is repeated/,
    );
    await rejectsWith(
      () => mergeHandoffs(kv, LIMITS, { keys: ["a"] }),
      "invalid",
      /at least 2/,
    );
    await rejectsWith(
      () => mergeHandoffs(kv, LIMITS, { keys: ["a", "b"], newKey: "a" }),
      "invalid",
      /one of the sources, which are kept/,
    );
    await rejectsWith(
      () => mergeHandoffs(kv, LIMITS, { keys: ["a", "b"], strategy: "random" }),
      "invalid",
      /strategy must be one of chronological, sequential/,
    );
    await saveHandoff(kv, LIMITS, input("c"));
    const withC = await snapshot(kv);
    await rejectsWith(
      () => mergeHandoffs(kv, LIMITS, { keys: ["a", "b"], newKey: "c" }),
      "invalid",
      /new_key "c" already exists/,
    );
    assert.equal(await snapshot(kv), withC);
    assert.notEqual(before, withC);
    const tooMany = Array.from({ length: LIMITS.mergeSourcesMax + 1 }, (_, i) => `k${i}`);
    await rejectsWith(
      () => mergeHandoffs(kv, LIMITS, { keys: tooMany }),
      "invalid",
      /at most 10 \(HANDOFF_MERGE_MAX_SOURCES\)/,
    );
  });
});

Deno.test("a merge that would pass a limit changes nothing", async () => {
  await withKv(async (kv) => {
    const limits = { ...LIMITS, conversationMaxBytes: 4000, tagsMax: 3, commentsMax: 1 };
    await saveHandoff(kv, limits, input("a", { conversation: "a".repeat(2000), tags: ["t1"] }));
    await saveHandoff(kv, limits, input("b", { conversation: "b".repeat(2000), tags: ["t2"] }));
    await saveHandoff(kv, limits, input("c", { tags: ["t3", "t4"] }));
    await saveHandoff(kv, limits, input("d"));
    await saveHandoff(kv, limits, input("e", { tags: ["t5", "t6"] }));
    await addComment(kv, limits, "c", "one");
    await addComment(kv, limits, "d", "two");
    const before = await snapshot(kv);
    await rejectsWith(
      () => mergeHandoffs(kv, limits, { keys: ["a", "b"], deleteSources: true }),
      "too_large",
      /merged conversation would be \d+ bytes; at most 4000/,
    );
    await rejectsWith(
      () => mergeHandoffs(kv, limits, { keys: ["c", "e"] }),
      "invalid",
      /4 distinct tags/,
    );
    await rejectsWith(
      () => mergeHandoffs(kv, limits, { keys: ["c", "d"] }),
      "full",
      /2 comments together; at most 1/,
    );
    assert.equal(await snapshot(kv), before, "nothing written, leases released");
  });
});

Deno.test("a merge refuses sources another merge holds, and its own sources are never evicted", async () => {
  await withKv(async (kv) => {
    const limits = { ...LIMITS, maxHandoffs: 3 };
    for (const k of ["a", "b", "c"]) await saveHandoff(kv, limits, input(k));
    await kv.set(handoffLeaseKey("c"), { id: "other", until: Date.now() + 60_000 });
    await rejectsWith(
      () => mergeHandoffs(kv, limits, { keys: ["b", "c"] }),
      "busy",
      /"c" is being merged by another call/,
    );
    await kv.delete(handoffLeaseKey("c"));
    // Full store, sources kept: the new handoff needs room, and "a" and "b" (the oldest) are
    // the sources, so "c" is evicted instead.
    const res = await mergeHandoffs(kv, limits, { keys: ["a", "b"], newKey: "ab" });
    assert.equal(res.evicted?.key, "c");
    const keys = (await listHandoffs(kv, { limit: 10 })).items.map((h) => h.key).sort();
    assert.deepEqual(keys, ["a", "ab", "b"]);
    await assertNoOrphans(kv);
  });
});

Deno.test("mergeHandoffs() handles sources near 1 MiB in total, byte for byte", async () => {
  await withKv(async (kv) => {
    const part = (c: string) => `## User\n${c.repeat(160_000)}\n`; // 480 KB of 3-byte chars
    await saveHandoff(kv, LIMITS, input("a", { conversation: part("あ") }));
    await saveHandoff(kv, LIMITS, input("b", { conversation: part("い") }));
    await addComment(kv, LIMITS, "b", "c".repeat(10_000));
    const res = await mergeHandoffs(kv, LIMITS, {
      keys: ["a", "b"],
      newKey: "ab",
      deleteSources: true,
    });
    const loaded = await loadHandoff(kv, LIMITS, "ab");
    assert.ok(loaded.conversation.includes(part("あ")));
    assert.ok(loaded.conversation.endsWith(part("い")));
    assert.equal(new TextEncoder().encode(loaded.conversation).byteLength, res.handoff.bytes);
    assert.equal(loaded.comments[0].content, "c".repeat(10_000));
    await assertNoOrphans(kv);
  });
});

Deno.test("concurrent merges of the same sources: one wins, the other changes nothing", async () => {
  await withKv(async (kv) => {
    for (const k of ["a", "b"]) await saveHandoff(kv, LIMITS, input(k));
    const results = await Promise.allSettled([
      mergeHandoffs(kv, LIMITS, { keys: ["a", "b"], newKey: "m1", deleteSources: true }),
      mergeHandoffs(kv, LIMITS, { keys: ["a", "b"], newKey: "m2", deleteSources: true }),
    ]);
    const ok = results.filter((r) => r.status === "fulfilled");
    assert.equal(ok.length, 1);
    const keys = (await listHandoffs(kv, { limit: 10 })).items.map((h) => h.key);
    assert.equal(keys.length, 1);
    assert.ok(keys[0] === "m1" || keys[0] === "m2");
    await assertNoOrphans(kv);
  });
});

Deno.test("merging a merged handoff with one of its sources carries each comment once", async () => {
  await withKv(async (kv) => {
    await saveHandoff(kv, LIMITS, input("a"));
    await saveHandoff(kv, LIMITS, input("b"));
    await addComment(kv, LIMITS, "a", "note on a");
    await mergeHandoffs(kv, LIMITS, { keys: ["a", "b"], newKey: "ab" });
    // "ab" holds copies of a's comment under the same id.
    const again = await mergeHandoffs(kv, LIMITS, { keys: ["a", "ab"], newKey: "again" });
    assert.equal(again.carriedComments, 1);
    assert.equal(again.handoff.commentIds.length, 1);
    const loaded = await loadHandoff(kv, LIMITS, "again");
    assert.deepEqual(loaded.comments.map((c) => c.content), ["note on a"]);
    await assertNoOrphans(kv);
  });
});
