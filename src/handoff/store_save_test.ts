import assert from "node:assert/strict";
import { splitBytes, STAGE_TTL_MS, stageWrites, sweepPendingDeletes } from "../kit/chunks.ts";
import { addComment } from "./store_comments.ts";
import {
  assertConsistent,
  census,
  input,
  LIMITS,
  rejectsWith,
  withKv,
} from "../../tests/support/handoff_store.ts";
import { loadHandoff } from "./store_read.ts";
import { saveHandoff, type SaveInput } from "./store_save.ts";
import { handoffChunkKey, handoffKey } from "./store_schema.ts";
import { titleFromSummary } from "./store_validate.ts";
import { AppError } from "../kit/errors.ts";

Deno.test("saveHandoff() stores a record, a time entry, chunks and the count", async () => {
  await withKv(async (kv) => {
    const res = await saveHandoff(kv, LIMITS, input({ key: "design", tags: ["Deno", "kv"] }));
    assert.equal(res.overwritten, false);
    assert.equal(res.evicted, null);
    assert.equal(res.handoff.title, "Designing the handoff store");
    assert.deepEqual(res.handoff.tags, ["deno", "kv"]);
    assert.equal(res.handoff.messageCount, 2);
    assert.equal(res.handoff.status, "active");
    assert.equal((await kv.get(handoffKey("design"))).value !== null, true);
    const loaded = await loadHandoff(kv, LIMITS, "design");
    assert.equal(loaded.conversation, input().conversation);
    await assertConsistent(kv);
  });
});

Deno.test("saveHandoff() generates handoff-YYYYMMDD-HHMMSS-xxxxxx keys and titles from summaries", async () => {
  await withKv(async (kv) => {
    const res = await saveHandoff(kv, LIMITS, input({ summary: "# Plan\n\nsecond line" }));
    assert.match(res.handoff.key, /^handoff-\d{8}-\d{6}-[a-z0-9]{6}$/);
    assert.equal(res.generatedKey, true);
    assert.equal(res.handoff.title, "Plan");
    const long = titleFromSummary("word ".repeat(100), LIMITS);
    assert.ok([...long].length <= 80 && long.endsWith("…"));
  });
});

Deno.test("saveHandoff() overwrites an existing key, says so, keeps comments, leaves no old chunks", async () => {
  await withKv(async (kv) => {
    const big = "## User\n" + "é".repeat(400_000);
    const first = await saveHandoff(kv, LIMITS, input({ key: "k", conversation: big }));
    await addComment(kv, LIMITS, "k", "remember the lease");
    const second = await saveHandoff(
      kv,
      LIMITS,
      input({ key: "k", conversation: "## User\nnew\n" }),
    );
    assert.equal(second.overwritten, true);
    assert.equal(second.handoff.createdAt, first.handoff.createdAt);
    assert.equal(second.handoff.commentIds.length, 1);
    assert.equal((await loadHandoff(kv, LIMITS, "k")).conversation, "## User\nnew\n");
    await assertConsistent(kv);
  });
});

Deno.test("a 1 MiB conversation of multi-byte text round-trips byte for byte", async () => {
  await withKv(async (kv) => {
    const unit = "## User\n日本語のテキスト🎌 ünïcödé\r\n\t```\n## Assistant\nok\n";
    const unitBytes = new TextEncoder().encode(unit).byteLength;
    const text = unit.repeat(Math.floor(LIMITS.conversationMaxBytes / unitBytes));
    const size = new TextEncoder().encode(text).byteLength;
    assert.ok(size > LIMITS.conversationMaxBytes - 100);
    const steps: number[] = [];
    const res = await saveHandoff(
      kv,
      LIMITS,
      input({ key: "big", conversation: text }),
      (done) => void steps.push(done),
    );
    assert.equal(res.handoff.bytes, size);
    assert.ok(res.handoff.chunks.length >= 18);
    assert.ok(steps.length >= 3, "progress was reported per batch");
    const loaded = await loadHandoff(kv, LIMITS, "big");
    assert.equal(loaded.conversation, text);
    assert.deepEqual(
      new TextEncoder().encode(loaded.conversation),
      new TextEncoder().encode(text),
    );
    await assertConsistent(kv);
  });
});

Deno.test("every save limit has its own error, and a refused save writes nothing", async () => {
  await withKv(async (kv) => {
    const limits = { ...LIMITS, conversationMaxBytes: 2000 };
    await saveHandoff(kv, limits, input({ key: "keep" }));
    const before = await census(kv);
    const cases: [Partial<SaveInput>, AppError["kind"], RegExp][] = [
      [{ conversation: "x".repeat(2001) }, "too_large", /conversation is 2001 bytes.*at most 2000/],
      [{ conversation: "é".repeat(1001) }, "too_large", /2002 bytes \(UTF-8\)/],
      [{ conversation: "   \n" }, "invalid", /conversation must not be empty/],
      [{ conversation: "a\uD800b" }, "invalid", /lone UTF-16 surrogate/],
      [{ summary: "s".repeat(10 * 1024 + 1) }, "too_large", /summary is 10241 bytes.*10240/],
      [{ summary: "  " }, "invalid", /summary must not be empty/],
      [{ title: "t".repeat(201) }, "too_large", /title is 201 characters; at most 200/],
      [{ title: "two\nlines" }, "invalid", /title must be a single line/],
      [{ key: "has space" }, "invalid", /outside A-Z a-z 0-9 _ -/],
      [{ key: "k".repeat(101) }, "invalid", /1–100 characters.*got 101/],
      [{ key: "merge" }, "invalid", /reserved/],
      [{ key: "Search" }, "invalid", /reserved/],
      [{ tags: ["ok", "Not Ok"] }, "invalid", /tag "Not Ok" is not allowed.*a-z 0-9 _ : - \. \//],
      [{ tags: ["project:acme widget"] }, "invalid", /is not allowed/],
      [{ tags: ["project:acme\\widget"] }, "invalid", /is not allowed/],
      [{ tags: ["t".repeat(51)] }, "invalid", /1–50 characters/],
      [{ tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, "invalid", /21 tags.*at most 20/],
      [{ status: "done" }, "invalid", /status must be one of active, completed, pending/],
      [{ fromAi: "a".repeat(101) }, "too_large", /from_ai is 101 characters/],
      [{ nextAction: "n".repeat(1001) }, "too_large", /next_action is 1001 characters/],
    ];
    for (const [overrides, kind, message] of cases) {
      await rejectsWith(() => saveHandoff(kv, limits, input(overrides)), kind, message);
    }
    assert.deepEqual(await census(kv), before, "refused saves wrote nothing");
  });
});

Deno.test("tags take a repository's characters: project:acme/widget.js is kept as given", async () => {
  await withKv(async (kv) => {
    const saved = await saveHandoff(
      kv,
      LIMITS,
      input({ key: "repo", tags: ["Project:Acme/Widget.JS", "v1.2"] }),
    );
    assert.deepEqual(saved.handoff.tags, ["project:acme/widget.js", "v1.2"]);
  });
});

Deno.test("a save whose writer died after staging leaves nothing visible and is swept", async () => {
  await withKv(async (kv) => {
    await saveHandoff(kv, LIMITS, input({ key: "k" }));
    // Simulate the crash: stage chunks the way saveHandoff does, then never adopt them.
    const big = new TextEncoder().encode("## User\n" + "x".repeat(900_000));
    const entries = splitBytes(big).map((part, i) =>
      [handoffChunkKey("k", `01DEAD${String(i).padStart(4, "0")}`), part.slice()] as const
    );
    const staged = await stageWrites(kv, entries);
    assert.equal(staged.inlineBytes, 0, "written before any record points at it");
    assert.equal((await loadHandoff(kv, LIMITS, "k")).conversation, input().conversation);
    assert.equal(await sweepPendingDeletes(kv), 0, "not before the TTL");
    assert.equal(await sweepPendingDeletes(kv, Date.now() + STAGE_TTL_MS + 1), 1);
    await assertConsistent(kv);
  });
});

Deno.test("saveHandoff() refuses lone surrogates in every line field, writing nothing", async () => {
  await withKv(async (kv) => {
    const cases: Partial<SaveInput>[] = [
      { title: "a\uD800" },
      { fromAi: "\uDBFF" },
      { fromProject: "p\uDC00" },
      { nextAction: "next \uD800" },
      { summary: "sum \uD800" },
    ];
    for (const overrides of cases) {
      await rejectsWith(
        () => saveHandoff(kv, LIMITS, input(overrides)),
        "invalid",
        /lone UTF-16 surrogate/,
      );
    }
    assert.deepEqual(await census(kv), {});
  });
});
