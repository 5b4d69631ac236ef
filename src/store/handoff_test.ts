import assert from "node:assert/strict";
import { DEFAULT_HANDOFF_LIMITS, type HandoffLimits } from "../config.ts";
import {
  countPendingDeletes,
  splitBytes,
  STAGE_TTL_MS,
  stageWrites,
  sweepPendingDeletes,
} from "./chunks.ts";
import {
  addComment,
  appendHandoff,
  clearHandoffs,
  deleteComment,
  deleteHandoff,
  type Handoff,
  handoffChunkKey,
  handoffCountKey,
  handoffKey,
  handoffLeaseKey,
  handoffStats,
  listHandoffs,
  loadHandoff,
  type Progress,
  saveHandoff,
  type SaveInput,
  titleFromSummary,
} from "./handoff.ts";
import { mergeHandoffs } from "./handoff_merge.ts";
import { searchHandoffs } from "./handoff_search.ts";
import { StoreError } from "./kv.ts";

const LIMITS: HandoffLimits = { ...DEFAULT_HANDOFF_LIMITS };

async function withKv(fn: (kv: Deno.Kv) => Promise<void>): Promise<void> {
  const kv = await Deno.openKv(":memory:");
  try {
    await fn(kv);
  } finally {
    kv.close();
  }
}

function input(overrides: Partial<SaveInput> = {}): SaveInput {
  return {
    summary: "Designing the handoff store",
    conversation: "## User\nhello\n\n## Assistant\nhi there\n",
    ...overrides,
  };
}

/** Every key in KV grouped by its first part, to catch orphans. */
async function census(kv: Deno.Kv): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for await (const e of kv.list({ prefix: [] })) {
    const name = String(e.key[0]);
    out[name] = (out[name] ?? 0) + 1;
  }
  return out;
}

/** Asserts the KV holds exactly what the records point at: no orphans, count right. */
async function assertConsistent(kv: Deno.Kv): Promise<void> {
  const records = (await Array.fromAsync(kv.list<Handoff>({ prefix: ["handoff"] }))).map((e) =>
    e.value
  );
  const chunks = await Array.fromAsync(kv.list({ prefix: ["handoff_chunk"] }));
  const comments = await Array.fromAsync(kv.list({ prefix: ["handoff_comment"] }));
  const times = await Array.fromAsync(kv.list<string>({ prefix: ["handoff_time"] }));
  const count = (await kv.get<number>(handoffCountKey())).value ?? 0;
  assert.equal(count, records.length, "count matches the records");
  assert.equal(times.length, records.length, "one time entry per record");
  const chunkIds = new Set(records.flatMap((h) => h.chunks.map((c) => `${h.key}/${c.id}`)));
  assert.deepEqual(
    new Set(chunks.map((e) => `${String(e.key[1])}/${String(e.key[2])}`)),
    chunkIds,
    "chunks are exactly those the records list",
  );
  const commentIds = new Set(records.flatMap((h) => h.commentIds.map((c) => `${h.key}/${c}`)));
  assert.deepEqual(
    new Set(comments.map((e) => `${String(e.key[1])}/${String(e.key[2])}`)),
    commentIds,
  );
  assert.equal(await countPendingDeletes(kv), 0, "no pending deletes left behind");
}

async function rejectsWith(
  fn: () => Promise<unknown>,
  kind: StoreError["kind"],
  message: RegExp,
): Promise<void> {
  await assert.rejects(fn, (error: unknown) => {
    assert.ok(error instanceof StoreError, `expected StoreError, got ${error}`);
    assert.equal(error.kind, kind, error.message);
    assert.match(error.message, message);
    return true;
  });
}

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
    const cases: [Partial<SaveInput>, StoreError["kind"], RegExp][] = [
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
      [{ tags: ["ok", "Not Ok"] }, "invalid", /tag "Not Ok" is not allowed/],
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

Deno.test("at the limit, a save evicts the oldest handoff and names it", async () => {
  await withKv(async (kv) => {
    const limits = { ...LIMITS, maxHandoffs: 3 };
    for (const key of ["a", "b", "c"]) await saveHandoff(kv, limits, input({ key }));
    await saveHandoff(kv, limits, input({ key: "a", summary: "a again" })); // a is now newest
    const res = await saveHandoff(kv, limits, input({ key: "d" }));
    assert.deepEqual(res.evicted?.key, "b");
    const keys = (await listHandoffs(kv, { limit: 10 })).items.map((h) => h.key);
    assert.deepEqual(keys, ["d", "a", "c"]);
    await assertConsistent(kv);
  });
});

Deno.test("with eviction off a full store refuses new keys but still takes overwrites", async () => {
  await withKv(async (kv) => {
    const limits = { ...LIMITS, maxHandoffs: 2, evictWhenFull: false };
    await saveHandoff(kv, limits, input({ key: "a" }));
    await saveHandoff(kv, limits, input({ key: "b" }));
    await rejectsWith(
      () => saveHandoff(kv, limits, input({ key: "c" })),
      "full",
      /holds 2 handoffs.*HANDOFF_MAX_COUNT=2.*eviction is off/,
    );
    await rejectsWith(() => saveHandoff(kv, limits, input()), "full", /eviction is off/);
    const over = await saveHandoff(kv, limits, input({ key: "a", summary: "again" }));
    assert.equal(over.overwritten, true);
    await assertConsistent(kv);
  });
});

Deno.test("an invalid save into a full store evicts nothing", async () => {
  await withKv(async (kv) => {
    const limits = { ...LIMITS, maxHandoffs: 2 };
    await saveHandoff(kv, limits, input({ key: "a" }));
    await saveHandoff(kv, limits, input({ key: "b" }));
    await rejectsWith(
      () => saveHandoff(kv, limits, input({ key: "c", tags: ["BAD TAG"] })),
      "invalid",
      /tag/,
    );
    assert.equal((await listHandoffs(kv, { limit: 10 })).items.length, 2);
  });
});

Deno.test("eviction skips a handoff held by a merge lease", async () => {
  await withKv(async (kv) => {
    const limits = { ...LIMITS, maxHandoffs: 2 };
    await saveHandoff(kv, limits, input({ key: "old" }));
    await saveHandoff(kv, limits, input({ key: "newer" }));
    await kv.set(handoffLeaseKey("old"), { id: "m", until: Date.now() + 60_000 });
    const res = await saveHandoff(kv, limits, input({ key: "newest" }));
    assert.equal(res.evicted?.key, "newer");
    await kv.delete(handoffLeaseKey("old"));
    await assertConsistent(kv);
  });
});

Deno.test("50 concurrent saves at the limit never exceed it and name every victim", async () => {
  await withKv(async (kv) => {
    const limits = { ...LIMITS, maxHandoffs: 10 };
    for (let i = 0; i < 10; i++) await saveHandoff(kv, limits, input({ key: `seed-${i}` }));
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => saveHandoff(kv, limits, input({ key: `new-${i}` }))),
    );
    const evicted = results.map((r) => r.evicted?.key);
    assert.ok(evicted.every((k) => k !== undefined), "each new key evicted one");
    assert.equal(new Set(evicted).size, 50, "no handoff was evicted twice");
    const left = (await listHandoffs(kv, { limit: 100 })).items.map((h) => h.key);
    assert.equal(left.length, 10);
    assert.deepEqual(
      new Set([...left, ...evicted]),
      new Set([
        ...Array.from({ length: 10 }, (_, i) => `seed-${i}`),
        ...results.map((r) => r.handoff.key),
      ]),
      "every key is either still there or named as evicted",
    );
    await assertConsistent(kv);
  });
});

Deno.test("50 concurrent saves with eviction off fill the store exactly", async () => {
  await withKv(async (kv) => {
    const limits = { ...LIMITS, maxHandoffs: 20, evictWhenFull: false };
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) => saveHandoff(kv, limits, input({ key: `k-${i}` }))),
    );
    assert.equal(results.filter((r) => r.status === "fulfilled").length, 20);
    for (const r of results) {
      if (r.status === "rejected") assert.equal((r.reason as StoreError).kind, "full");
    }
    await assertConsistent(kv);
  });
});

Deno.test("50 concurrent appends all land and the limit is never passed", async () => {
  await withKv(async (kv) => {
    const limits = { ...LIMITS, conversationMaxBytes: 3000 };
    await saveHandoff(kv, limits, input({ key: "a", conversation: "## User\nstart\n" }));
    const piece = (i: number) =>
      `## Assistant\npiece ${String(i).padStart(2, "0")} ${"x".repeat(40)}\n`;
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) => appendHandoff(kv, limits, "a", piece(i))),
    );
    const ok = results.flatMap((r, i) => r.status === "fulfilled" ? [i] : []);
    for (const r of results) {
      if (r.status === "rejected") {
        assert.equal((r.reason as StoreError).kind, "too_large");
        assert.match((r.reason as StoreError).message, /Nothing was appended/);
      }
    }
    const loaded = await loadHandoff(kv, limits, "a");
    const size = new TextEncoder().encode(loaded.conversation).byteLength;
    assert.ok(size <= 3000);
    assert.equal(loaded.handoff.bytes, size);
    for (const i of ok) assert.ok(loaded.conversation.includes(piece(i)), `piece ${i} landed`);
    const landed = loaded.conversation.match(/piece \d\d/g) ?? [];
    assert.equal(landed.length, ok.length, "nothing extra, nothing lost");
    assert.equal(loaded.handoff.messageCount, 1 + ok.length);
    await assertConsistent(kv);
  });
});

Deno.test("50 concurrent appends under the limit keep every byte", async () => {
  await withKv(async (kv) => {
    await saveHandoff(kv, LIMITS, input({ key: "a", conversation: "## User\nstart\n" }));
    await Promise.all(
      Array.from({ length: 50 }, (_, i) => appendHandoff(kv, LIMITS, "a", `[${i}]`)),
    );
    const loaded = await loadHandoff(kv, LIMITS, "a");
    for (let i = 0; i < 50; i++) assert.ok(loaded.conversation.includes(`[${i}]`));
    assert.equal(loaded.handoff.chunks.length, 1, "small appends are compacted into one chunk");
    await assertConsistent(kv);
  });
});

Deno.test("appendHandoff() builds a 1 MiB conversation from large pieces, exactly", async () => {
  await withKv(async (kv) => {
    const piece = (i: number) => `## User\n${String(i).repeat(10)} ${"ß".repeat(170_000)}\n`;
    await saveHandoff(kv, LIMITS, input({ key: "a", conversation: piece(0) }));
    let expected = piece(0);
    for (let i = 1; i < 3; i++) {
      await appendHandoff(kv, LIMITS, "a", piece(i));
      expected += piece(i);
    }
    const loaded = await loadHandoff(kv, LIMITS, "a");
    assert.equal(loaded.conversation, expected);
    assert.equal(loaded.handoff.messageCount, 3);
    await rejectsWith(
      () => appendHandoff(kv, LIMITS, "a", "x".repeat(30_000)),
      "too_large",
      /together \d+ bytes.*Nothing was appended/,
    );
    assert.equal((await loadHandoff(kv, LIMITS, "a")).conversation, expected);
    await rejectsWith(() => appendHandoff(kv, LIMITS, "missing", "x"), "not_found", /no handoff/);
    await assertConsistent(kv);
  });
});

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

Deno.test("searchHandoffs() filters by tags, text, origin, status and dates", async () => {
  await withKv(async (kv) => {
    await saveHandoff(
      kv,
      LIMITS,
      input({
        key: "a",
        tags: ["deno", "kv"],
        fromAi: "Claude Desktop",
        fromProject: "handoff-mcp",
        conversation: "## User\nThe LEASE design\n",
      }),
    );
    await saveHandoff(
      kv,
      LIMITS,
      input({
        key: "b",
        tags: ["deno"],
        fromAi: "Cursor",
        status: "completed",
        summary: "Lease notes",
      }),
    );
    await saveHandoff(kv, LIMITS, input({ key: "c", tags: ["web"] }));
    const keys = async (f: Partial<Parameters<typeof searchHandoffs>[2]>) =>
      (await searchHandoffs(kv, LIMITS, { limit: 10, ...f })).items.map((h) => h.key);
    assert.deepEqual(await keys({ tags: ["KV", "web"] }), ["c", "a"]);
    assert.deepEqual(await keys({ tagsAll: ["deno", "kv"] }), ["a"]);
    assert.deepEqual(await keys({ query: "lease" }), ["b", "a"], "summary and conversation");
    assert.deepEqual(await keys({ fromAi: "claude" }), ["a"]);
    assert.deepEqual(await keys({ fromProject: "HANDOFF" }), ["a"]);
    assert.deepEqual(await keys({ status: "completed" }), ["b"]);
    assert.deepEqual(await keys({ createdAfter: "2000-01-01", createdBefore: "2999-01-01" }), [
      "c",
      "b",
      "a",
    ]);
    assert.deepEqual(await keys({ createdAfter: "2999-01-01" }), []);
    const cut = await searchHandoffs(kv, LIMITS, { limit: 2 });
    assert.equal(cut.hasMore, true);
    assert.equal(cut.items.length, 2);
    await rejectsWith(
      () => searchHandoffs(kv, LIMITS, { limit: 5, createdAfter: "last tuesday" }),
      "invalid",
      /created_after must be an ISO-8601 date/,
    );
    await rejectsWith(
      () => searchHandoffs(kv, LIMITS, { limit: 5, status: "open" }),
      "invalid",
      /status must be one of/,
    );
  });
});

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

Deno.test("two KV handles on one file (two processes) never fail large writes with 'database is locked'", async () => {
  const dir = await Deno.makeTempDir();
  const first = await Deno.openKv(`${dir}/kv.sqlite`);
  const second = await Deno.openKv(`${dir}/kv.sqlite`);
  try {
    const big = "## User\n" + "ü".repeat(250_000); // 500 KB: staged before its record
    for (let i = 0; i < 4; i++) {
      await saveHandoff(first, LIMITS, input({ key: `k${i}`, conversation: big }));
    }
    const results = await Promise.allSettled(Array.from({ length: 30 }, (_, i) => {
      const kv = i % 2 ? second : first;
      if (i % 5 === 0) {
        // Too large once both sources hold `big`: refused after the sources were leased.
        return mergeHandoffs(kv, LIMITS, { keys: [`k${i % 4}`, `k${(i + 2) % 4}`] });
      }
      if (i % 3 === 0) return appendHandoff(kv, LIMITS, `k${i % 4}`, "x".repeat(200_000));
      return saveHandoff(kv, LIMITS, input({ key: `k${i % 6}`, conversation: big }));
    }));
    for (const r of results) {
      if (r.status === "rejected") {
        assert.ok(r.reason instanceof StoreError, `a plain failure escaped: ${r.reason}`);
      }
    }
    assert.deepEqual(
      await Array.fromAsync(first.list({ prefix: ["handoff_lease"] })),
      [],
      "every merge gave its leases back",
    );
    await clearHandoffs(first, LIMITS);
    await assertConsistent(first);
  } finally {
    first.close();
    second.close();
    await Deno.remove(dir, { recursive: true });
  }
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

Deno.test("error messages quote bad input without splitting an emoji", async () => {
  await withKv(async (kv) => {
    const key = `${"k".repeat(39)}🎌🎌`;
    await rejectsWith(() => loadHandoff(kv, LIMITS, key), "invalid", /outside A-Z/);
    await loadHandoff(kv, LIMITS, key).catch((error: Error) => {
      assert.ok(error.message.isWellFormed(), error.message);
    });
  });
});

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
