import assert from "node:assert/strict";
import { CLAUDE, CODEX, fails, withTable } from "../../tests/support/table_mcp.ts";
import { tempKvPath } from "../../tests/support/harness.ts";
import { loadTableSettings } from "./settings.ts";
import { countValue, tableCtx } from "./store_common.ts";
import {
  createDiscussion,
  POST_BATCH,
  postMessage,
  quietDiscussions,
} from "./store_discussions.ts";
import { discussionPage, fetchDiscussion, getDiscussion } from "./store_discussion_page.ts";
import { keys, summaryOf } from "./store_schema.ts";

async function count(kv: Deno.Kv, ws: string, name: Parameters<typeof keys.count>[1]) {
  return countValue(await kv.get(keys.count(ws, name)));
}

Deno.test("createDiscussion() with a body posts seq 1 in the same atomic, and counts both", async () => {
  await withTable({}, async ({ ctx, kv }) => {
    const r = await createDiscussion(ctx, CODEX, { title: "API", body: "REST?", kind: "proposal" });
    assert.equal(r.workspace, "main");
    assert.equal(r.workspace_source, "default");
    assert.equal(r.discussion.latest_seq, 1);
    assert.deepEqual(r.message?.author, { name: "codex", via: "token" });
    const stored = await kv.get(keys.message(r.discussion.id, 1));
    assert.ok(stored.value);
    assert.equal(await count(kv, "main", "discussions"), 1);
    assert.equal(countValue(await kv.get(keys.spoke("main", "codex", "messages"))), 1);
    const bare = await createDiscussion(ctx, CODEX, { title: "Empty", workspace: "Acme/App" });
    assert.equal(bare.workspace, "acme/app");
    assert.equal(bare.workspace_source, "caller");
    assert.equal(bare.message, null);
    assert.equal(bare.discussion.latest_seq, 0);
  });
});

Deno.test("postMessage() numbers messages contiguously and checks in_reply_to", async () => {
  await withTable({}, async ({ ctx }) => {
    const { discussion } = await createDiscussion(ctx, CODEX, { title: "T" });
    for (let i = 1; i <= 3; i++) {
      const r = await postMessage(ctx, i % 2 ? CLAUDE : CODEX, {
        discussion_id: discussion.id,
        body: `m${i}`,
      });
      assert.equal(r.message.seq, i);
      assert.equal(r.message.kind, "note");
    }
    const reply = await postMessage(ctx, CODEX, {
      discussion_id: discussion.id,
      body: "yes",
      kind: "review",
      in_reply_to: 2,
    });
    assert.equal(reply.message.in_reply_to, 2);
    await fails(
      postMessage(ctx, CODEX, { discussion_id: discussion.id, body: "x", in_reply_to: 9 }),
      "invalid",
      /in_reply_to 9 names no message: .* has seqs 1\.\.4/,
    );
    await fails(
      postMessage(ctx, CODEX, { discussion_id: discussion.id, body: "x", in_reply_to: 0 }),
      "invalid",
      /in_reply_to must be the seq/,
    );
    await fails(
      postMessage(ctx, CODEX, { discussion_id: "01ARZ3NDEKTSV4RRFFQ69G5FAV", body: "x" }),
      "not_found",
      /No discussion has id/,
    );
    await fails(postMessage(ctx, CODEX, { discussion_id: " ", body: "x" }), "invalid", /not blank/);
    const page = await getDiscussion(ctx, { discussion_id: discussion.id });
    assert.deepEqual(page.messages.map((m) => m.seq), [1, 2, 3, 4]);
  });
});

Deno.test("postMessage() from 16 concurrent posters gives seqs exactly 1..16", async () => {
  await withTable({}, async ({ ctx }) => {
    const { discussion } = await createDiscussion(ctx, CODEX, { title: "Race" });
    const seqs = await Promise.all(
      Array.from(
        { length: 16 },
        (_, i) =>
          postMessage(ctx, i % 2 ? CODEX : CLAUDE, { discussion_id: discussion.id, body: `${i}` })
            .then((r) => r.message.seq),
      ),
    );
    assert.deepEqual(seqs.sort((a, b) => a - b), Array.from({ length: 16 }, (_, i) => i + 1));
    const page = await getDiscussion(ctx, { discussion_id: discussion.id });
    assert.equal(page.total, 16);
    assert.deepEqual(new Set(page.messages.map((m) => m.body)).size, 16);
    // The activity index holds exactly one entry per discussion, equal to the record's summary.
    const activity = await Array.fromAsync(ctx.kv.list({ prefix: keys.activityIn("main") }));
    assert.equal(activity.length, 1);
    assert.deepEqual(activity[0].value, summaryOf(page.discussion));
    assert.equal(page.discussion.latest_seq, 16);
  });
});

Deno.test("postMessage() on two KV handles of one file: 16 posters, seqs 1..16, no gap", async () => {
  const tmp = await tempKvPath();
  const a = await Deno.openKv(tmp.path);
  const b = await Deno.openKv(tmp.path);
  try {
    const settings = loadTableSettings(new Map());
    const ctxA = tableCtx(a, settings);
    const ctxB = tableCtx(b, settings);
    const { discussion } = await createDiscussion(ctxA, CODEX, { title: "Two handles" });
    const seqs = await Promise.all(
      Array.from(
        { length: 16 },
        (_, i) =>
          postMessage(i % 2 ? ctxA : ctxB, CODEX, { discussion_id: discussion.id, body: `${i}` })
            .then((r) => r.message.seq),
      ),
    );
    assert.deepEqual(seqs.sort((x, y) => x - y), Array.from({ length: 16 }, (_, i) => i + 1));
    const page = await getDiscussion(ctxB, { discussion_id: discussion.id });
    assert.deepEqual(page.messages.map((m) => m.seq), seqs);
    assert.equal(countValue(await a.get(keys.spoke("main", "codex", "messages"))), 16);
  } finally {
    a.close();
    b.close();
    await tmp.cleanup();
  }
});

Deno.test("getDiscussion() says when it is cut and where to read on", async () => {
  await withTable({}, async ({ ctx }) => {
    const { discussion } = await createDiscussion(ctx, CODEX, { title: "Long", body: "1" });
    for (let i = 2; i <= 60; i++) {
      await postMessage(ctx, CODEX, { discussion_id: discussion.id, body: `${i}` });
    }
    const first = await getDiscussion(ctx, { discussion_id: discussion.id });
    assert.equal(first.messages.length, 50);
    assert.equal(first.has_more, true);
    assert.equal(first.total, 60);
    assert.equal(first.latest_seq, 60);
    assert.match(first.warning!, /after_seq=50/);
    const rest = await getDiscussion(ctx, { discussion_id: discussion.id, after_seq: 50 });
    assert.deepEqual(rest.messages.map((m) => m.seq), [51, 52, 53, 54, 55, 56, 57, 58, 59, 60]);
    assert.equal(rest.has_more, false);
    assert.equal(rest.warning, undefined);
    const small = await getDiscussion(ctx, {
      discussion_id: discussion.id,
      limit: 5,
      after_seq: 3,
    });
    assert.deepEqual(small.messages.map((m) => m.seq), [4, 5, 6, 7, 8]);
    await fails(
      getDiscussion(ctx, { discussion_id: discussion.id, limit: 201 }),
      "invalid",
      /limit must be a whole number from 1 to 200/,
    );
    await fails(
      getDiscussion(ctx, { discussion_id: discussion.id, after_seq: -1 }),
      "invalid",
      /after_seq/,
    );
  });
});

Deno.test("limits are errors, never cuts: titles, bodies, names, workspaces, lone surrogates", async () => {
  await withTable({}, async ({ ctx, kv }) => {
    await fails(
      createDiscussion(ctx, CODEX, { title: "t".repeat(201) }),
      "too_large",
      /201 characters; at most 200/,
    );
    await fails(
      createDiscussion(ctx, CODEX, { title: "ok", body: "b".repeat(32 * 1024 + 1) }),
      "too_large",
      /body is 32769 bytes \(UTF-8\); at most 32768 bytes \(TABLE_MESSAGE_MAX_BYTES\)/,
    );
    await fails(
      createDiscussion(ctx, CODEX, { title: "a\ud800" }),
      "invalid",
      /lone UTF-16 surrogate/,
    );
    await fails(
      createDiscussion(ctx, CODEX, { title: "  " }),
      "invalid",
      /empty or whitespace-only/,
    );
    await fails(createDiscussion(ctx, CODEX, { title: "a\nb" }), "invalid", /single line/);
    await fails(
      createDiscussion(ctx, CODEX, { title: "ok", workspace: "w".repeat(141) }),
      "invalid",
      /at most 140 characters/,
    );
    assert.equal(countValue(await kv.get(keys.count("main", "discussions"))), 0);
    // A body at the limit fits one KV value even when every character takes two bytes.
    const atLimit = "é".repeat(16 * 1024);
    const r = await createDiscussion(ctx, CODEX, { title: "big", body: atLimit });
    const page = await getDiscussion(ctx, { discussion_id: r.discussion.id });
    assert.equal(page.messages[0].body, atLimit);
    const mixed = "a".repeat(32 * 1024 - 4) + "😀";
    const m = await postMessage(ctx, CODEX, { discussion_id: r.discussion.id, body: mixed });
    assert.equal(m.message.body, mixed);
  });
});

Deno.test("quietDiscussions() lists discussions with no message since the cutoff, oldest first", async () => {
  await withTable({}, async ({ ctx, clock }) => {
    const old = await createDiscussion(ctx, CODEX, { title: "old", body: "x" });
    clock.advanceDays(3);
    const mid = await createDiscussion(ctx, CODEX, { title: "mid", body: "x" });
    clock.advanceDays(5);
    await createDiscussion(ctx, CODEX, { title: "new", body: "x" });
    const cutoff = new Date(clock.now - 7 * 86_400_000).toISOString();
    const quiet = await quietDiscussions(ctx, "main", cutoff, 10);
    assert.deepEqual(quiet.items.map((d) => d.title), ["old"]);
    await postMessage(ctx, CLAUDE, { discussion_id: old.discussion.id, body: "revived" });
    const after = await quietDiscussions(
      ctx,
      "main",
      new Date(clock.now - 86_400_000).toISOString(),
      10,
    );
    assert.deepEqual(after.items.map((d) => d.id), [mid.discussion.id]);
  });
});

Deno.test("postMessage() from two store contexts (two processes) interleaves seqs without a gap", async () => {
  await withTable({}, async ({ ctx, kv, settings }) => {
    const other = tableCtx(kv, settings);
    const { discussion } = await createDiscussion(ctx, CODEX, { title: "Memo", body: "1" });
    await postMessage(ctx, CODEX, { discussion_id: discussion.id, body: "2" });
    for (const body of ["3", "4"]) {
      await postMessage(other, CLAUDE, { discussion_id: discussion.id, body });
    }
    // A reply to 4 must not be refused, nor seq 3 taken twice.
    const reply = await postMessage(ctx, CODEX, {
      discussion_id: discussion.id,
      body: "5",
      in_reply_to: 4,
    });
    assert.equal(reply.message.seq, 5);
    const plain = await postMessage(other, CLAUDE, { discussion_id: discussion.id, body: "6" });
    assert.equal(plain.message.seq, 6);
    assert.equal(
      (await postMessage(ctx, CODEX, { discussion_id: discussion.id, body: "7" }))
        .message.seq,
      7,
    );
    const page = await getDiscussion(ctx, { discussion_id: discussion.id });
    assert.deepEqual(page.messages.map((m) => m.body), ["1", "2", "3", "4", "5", "6", "7"]);
    await fails(
      postMessage(ctx, CODEX, { discussion_id: discussion.id, body: "x", in_reply_to: 8 }),
      "invalid",
      /in_reply_to 8 names no message: .* has seqs 1\.\.7/,
    );
  });
});

Deno.test("postMessage() keeps one sighting per author, under the spelling last seen", async () => {
  await withTable({}, async ({ ctx, kv }) => {
    const { discussion } = await createDiscussion(ctx, CODEX, { title: "Seen" });
    const seen = () => Array.fromAsync(kv.list({ prefix: keys.seenIn("main") }));
    await postMessage(ctx, CODEX, { discussion_id: discussion.id, body: "a" });
    assert.equal((await seen()).length, 1);
    await postMessage(ctx, { ...CODEX, name: "Codex" }, {
      discussion_id: discussion.id,
      body: "b",
    });
    const after = await seen();
    assert.equal(after.length, 1);
    assert.deepEqual(after[0].value, { name: "Codex", via: "token" });
    assert.equal(countValue(await kv.get(keys.spoke("main", "codex", "messages"))), 2);
  });
});

Deno.test("postMessage(): posts waiting on one discussion share commits, each checked on its own", async () => {
  await withTable({}, async ({ ctx, kv }) => {
    const { discussion } = await createDiscussion(ctx, CODEX, { title: "Batch", body: "1" });
    const id = discussion.id;
    const n = POST_BATCH.posts + 8;
    const posts = Array.from({ length: n }, (_, i) =>
      postMessage(ctx, i % 2 ? CODEX : CLAUDE, {
        discussion_id: id,
        body: `p${i}`,
        // Post 5 answers a message a post ahead of it in the same turn takes; post 9 names none.
        ...(i === 5 ? { in_reply_to: 4 } : i === 9 ? { in_reply_to: 999 } : {}),
      }));
    const settled = await Promise.allSettled(posts);
    const bad = settled[9];
    assert.equal(bad.status, "rejected");
    assert.match((bad as PromiseRejectedResult).reason.message, /in_reply_to 999 names no message/);
    const seqs = settled.flatMap((s) => s.status === "fulfilled" ? [s.value.message.seq] : []);
    assert.deepEqual(seqs.sort((a, b) => a - b), Array.from({ length: n - 1 }, (_, i) => i + 2));
    for (const s of settled) {
      if (s.status === "fulfilled") {
        assert.equal(s.value.discussion.latest_seq, s.value.message.seq);
      }
    }
    const stored = await Array.fromAsync(kv.list({ prefix: keys.messagesOf(id) }));
    assert.deepEqual(stored.map((e) => e.key[2]), Array.from({ length: n }, (_, i) => i + 1));
    assert.equal(
      (stored.find((e) => e.key[2] === 7)?.value as { body: Uint8Array }).body.length,
      2,
    );
    // Fewer commits than posts, none carrying more than POST_BATCH.posts messages.
    const commits = new Map<string, number>();
    for (const e of stored.slice(1)) {
      commits.set(e.versionstamp, (commits.get(e.versionstamp) ?? 0) + 1);
    }
    assert.ok(commits.size >= 2 && commits.size < n - 1, `${commits.size} commits`);
    assert.ok(Math.max(...commits.values()) <= POST_BATCH.posts);
    const page = await getDiscussion(ctx, { discussion_id: id, limit: 200 });
    assert.equal(page.latest_seq, n);
    assert.equal(page.messages.find((m) => m.body === "p5")?.in_reply_to, 4);
    const activity = await Array.fromAsync(kv.list({ prefix: keys.activityIn("main") }));
    assert.deepEqual(activity.map((e) => e.value), [summaryOf(page.discussion)]);
    const spoken = countValue(await kv.get(keys.spoke("main", "codex", "messages"))) +
      countValue(await kv.get(keys.spoke("main", "claude", "messages")));
    assert.equal(spoken, n);
  });
});

Deno.test("postMessage(): bodies at the limit, posted at once, still fit their atomics", async () => {
  await withTable({}, async ({ ctx }) => {
    const { discussion } = await createDiscussion(ctx, CODEX, { title: "Big" });
    // 26 bodies of 32 KiB are 832 KiB: more than one atomic may carry.
    const letters = "abcdefghijklmnopqrstuvwxyz".split("");
    const results = await Promise.all(
      letters.map((c) =>
        postMessage(ctx, CODEX, { discussion_id: discussion.id, body: c.repeat(32 * 1024) })
      ),
    );
    assert.deepEqual(
      results.map((r) => r.message.seq).sort((a, b) => a - b),
      letters.map((_, i) => i + 1),
    );
    const page = await getDiscussion(ctx, { discussion_id: discussion.id });
    assert.deepEqual(page.messages.map((m) => m.body[0]), letters);
  });
});

Deno.test("postMessage() on a record restored behind its messages moves past them, at once", async () => {
  await withTable({}, async ({ ctx, kv, settings }) => {
    const { discussion } = await createDiscussion(ctx, CODEX, { title: "Restored" });
    for (let i = 1; i <= 3; i++) {
      await postMessage(ctx, CODEX, { discussion_id: discussion.id, body: `m${i}` });
    }
    // What an export taken between a post's record and its message restores: the record says 0
    // (so the workspace still counts the discussion as empty), messages 1..3 exist.
    const stale = { ...discussion, latest_seq: 0 };
    await kv.set(keys.discussion(discussion.id), stale);
    await kv.set(keys.count("main", "discussions_empty"), new Deno.KvU64(1n));
    const fresh = tableCtx(kv, settings);
    const r = await postMessage(fresh, CLAUDE, {
      discussion_id: discussion.id,
      body: "after the restore",
      in_reply_to: 3,
    });
    assert.equal(r.message.seq, 4);
    assert.equal(r.discussion.latest_seq, 4);
    assert.equal(
      (await kv.get<{ latest_seq: number }>(keys.discussion(discussion.id))).value!
        .latest_seq,
      4,
    );
    assert.equal(await count(kv, "main", "discussions_empty"), 0);
    const again = await postMessage(fresh, CODEX, { discussion_id: discussion.id, body: "next" });
    assert.equal(again.message.seq, 5);
  });
});

Deno.test("discussionPage() cut inside a message never splits an emoji, and reads on after it", async () => {
  await withTable({}, async ({ ctx }) => {
    const body = "🚀🧪".repeat(10);
    const { discussion } = await createDiscussion(ctx, CODEX, { title: "Emoji", body });
    const fetched = await fetchDiscussion(ctx, { discussion_id: discussion.id });
    // Three UTF-16 units fall inside the second emoji: the cut moves past it.
    const page = discussionPage(fetched, 0, 3);
    assert.equal(page.messages[0].body, "🚀🧪");
    assert.equal(page.next_after_seq, 0);
    assert.equal(page.next_from_char, 2);
    const rest = await fetchDiscussion(ctx, {
      discussion_id: discussion.id,
      after_seq: 0,
      from_char: 2,
    });
    assert.equal(rest.messages[0].body, body.slice(4));
  });
});
