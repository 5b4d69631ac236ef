import assert from "node:assert/strict";
import { CLAUDE, CODEX, OWNER, withTable } from "../../tests/support/table_mcp.ts";
import { getWorkspaceContext } from "./store_context.ts";
import { recordDecision, resolveDecision } from "./store_decisions.ts";
import { getDiscussion } from "./store_discussion_page.ts";
import { createDiscussion, postMessage } from "./store_discussions.ts";
import { readPosition } from "./store_reads.ts";
import type { TableCtx } from "./store_common.ts";
import type { Caller } from "../kit/caller.ts";
import { keys } from "./store_schema.ts";

const WS = "acme/app";

async function unread(ctx: TableCtx, caller: Caller, limit?: number) {
  const c = await getWorkspaceContext(ctx, caller, { workspace: WS, limit });
  const per = new Map(
    [...c.discussions, ...c.quiet_discussions.items].map((d) => [d.title, d.unread]),
  );
  const { discussions, messages, items, has_more } = c.open_items.unread;
  // The named unread discussions agree with the totals, which are kept without a scan.
  if (!has_more) {
    assert.equal(items.length, discussions);
    assert.equal(items.reduce((n, d) => n + d.unread, 0), messages);
  }
  return { totals: { discussions, messages }, per };
}

async function post(ctx: TableCtx, caller: Caller, id: string, n: number) {
  for (let i = 0; i < n; i++) await postMessage(ctx, caller, { discussion_id: id, body: `m${i}` });
}

/** Counts the KV writes `work` makes, by the versionstamps of every key it may touch. */
async function versionOf(kv: Deno.Kv, key: Deno.KvKey): Promise<string | null> {
  return (await kv.get(key)).versionstamp;
}

Deno.test("unread: three participants, one never read; posting and reading move only your own position", async () => {
  await withTable({}, async ({ ctx }) => {
    const a = await createDiscussion(ctx, CODEX, { title: "A", body: "a1", workspace: WS });
    const b = await createDiscussion(ctx, CODEX, { title: "B", workspace: WS });
    const idA = a.discussion.id;
    const idB = b.discussion.id;
    await post(ctx, CLAUDE, idA, 2); // A: 3 messages, codex posted 1, claude 2 and 3
    await post(ctx, CODEX, idB, 4); // B: 4 messages by codex

    // codex: A read to its own post 1 (then claude posted 2 more), B read to its post 4.
    assert.deepEqual(await unread(ctx, CODEX), {
      totals: { discussions: 1, messages: 2 },
      per: new Map([["A", 2], ["B", 0]]),
    });
    // claude: posted A's seq 3 (so A is read), never read B.
    assert.deepEqual(await unread(ctx, CLAUDE), {
      totals: { discussions: 1, messages: 4 },
      per: new Map([["A", 0], ["B", 4]]),
    });
    // owner never read anything: everything with a message is unread.
    assert.deepEqual(await unread(ctx, OWNER), {
      totals: { discussions: 2, messages: 7 },
      per: new Map([["A", 3], ["B", 4]]),
    });

    // A page of two moves owner's position to seq 2 and says how much was unread before.
    const page = await getDiscussion(ctx, { discussion_id: idA, limit: 2 }, OWNER);
    assert.equal(page.unread_before, 3);
    assert.equal(await readPosition(ctx, "OWNER", WS, idA), 2, "names compare lower-cased");
    const rest = await getDiscussion(ctx, { discussion_id: idA, unread_only: true }, OWNER);
    assert.deepEqual(rest.messages.map((m) => m.seq), [3]);
    assert.equal(rest.unread_before, 1);
    assert.deepEqual((await unread(ctx, OWNER)).totals, { discussions: 1, messages: 4 });
    // Others' unread did not move.
    assert.deepEqual((await unread(ctx, CLAUDE)).totals, { discussions: 1, messages: 4 });
    assert.deepEqual((await unread(ctx, CODEX)).totals, { discussions: 1, messages: 2 });

    // A read with nothing new writes nothing; an unread_only read of nothing shows nothing.
    const key = keys.readPosition("owner", WS, idA);
    const before = await versionOf(ctx.kv, key);
    const none = await getDiscussion(ctx, { discussion_id: idA, unread_only: true }, OWNER);
    assert.deepEqual([none.messages.length, none.unread_before], [0, 0]);
    await getDiscussion(ctx, { discussion_id: idA }, OWNER);
    assert.equal(await versionOf(ctx.kv, key), before, "a read that moves nothing writes nothing");
    // Reading an earlier page never moves the position back.
    await getDiscussion(ctx, { discussion_id: idA, limit: 1 }, OWNER);
    assert.equal(await readPosition(ctx, "owner", WS, idA), 3);
    // A reader-less read (the /view pages) moves nobody's position.
    const viewed = await getDiscussion(ctx, { discussion_id: idB });
    assert.equal(viewed.unread_before, undefined);
    assert.equal((await unread(ctx, OWNER)).per.get("B"), 4);
  });
});

Deno.test("unread: a discussion read before and not listed still counts, and the verdict's note is the resolver's post", async () => {
  await withTable({ APPROVAL_SECRET: "code-1234" }, async ({ ctx, clock }) => {
    const ids: string[] = [];
    for (const title of ["old", "mid", "new"]) {
      clock.advanceDays(0.01);
      ids.push(
        (await createDiscussion(ctx, CODEX, { title, body: "x", workspace: WS })).discussion.id,
      );
    }
    await getDiscussion(ctx, { discussion_id: ids[0] }, CLAUDE);
    clock.advanceDays(0.01);
    await post(ctx, CODEX, ids[0], 2); // old: claude read 1 of 3; now the most recent
    await getDiscussion(ctx, { discussion_id: ids[1] }, CLAUDE); // mid: read to the end
    // limit 1 lists only "old" (most recent): "mid" is read but not listed.
    const c = await unread(ctx, CLAUDE, 1);
    assert.deepEqual(c.totals, { discussions: 2, messages: 3 });
    assert.equal(c.per.get("old"), 2);

    const d = await recordDecision(ctx, CODEX, {
      title: "D",
      detail: "d",
      discussion_id: ids[2],
      workspace: WS,
    });
    const r = await resolveDecision(ctx, OWNER, {
      decision_id: d.decision.id,
      verdict: "approved",
      reason: "fine",
      approval_code: "code-1234",
    });
    assert.equal(r.note_seq, 2);
    assert.equal(
      await readPosition(ctx, OWNER.name, WS, ids[2]),
      2,
      "the note is the owner's post",
    );
    assert.equal((await unread(ctx, CLAUDE)).per.get("new"), 2);
  });
});

Deno.test("unread: the named discussions skip read and empty ones beyond the first batch, newest first", async () => {
  await withTable({}, async ({ ctx, clock }) => {
    const open = async (title: string, body?: string) => {
      clock.advanceDays(0.01);
      return (await createDiscussion(ctx, CODEX, { title, body, workspace: WS })).discussion.id;
    };
    for (const title of ["d1", "d2", "d3", "d4", "d5"]) await open(title, "x");
    for (const title of ["e1", "e2", "e3"]) await open(title); // no message: nothing to read
    const read: string[] = [];
    for (const title of ["r1", "r2", "r3", "r4"]) read.push(await open(title, "x"));
    for (const id of read) await getDiscussion(ctx, { discussion_id: id }, CLAUDE);
    // Newest first: r4…r1 (read), e3…e1 (empty), then d5, d4, d3. The read goes past the first
    // seven entries (three wanted plus four read positions) to find them.
    const c = await getWorkspaceContext(ctx, CLAUDE, { workspace: WS, limit: 3 });
    const { items, discussions, has_more } = c.open_items.unread;
    assert.deepEqual(items.map((d) => [d.title, d.unread]), [["d5", 1], ["d4", 1], ["d3", 1]]);
    assert.equal(discussions, 5);
    assert.equal(has_more, true);
    // An unread one in the head the context listed: named once, the read going on past the head.
    await post(ctx, CODEX, read[0], 1); // r1 becomes the newest, one unread
    const d = await getWorkspaceContext(ctx, CLAUDE, { workspace: WS, limit: 3 });
    assert.deepEqual(
      d.open_items.unread.items.map((x) => [x.title, x.unread]),
      [["r1", 1], ["d5", 1], ["d4", 1]],
    );
    const e = await getWorkspaceContext(ctx, CLAUDE, { workspace: WS, limit: 5 });
    assert.deepEqual(
      e.open_items.unread.items.map((x) => x.title),
      ["r1", "d5", "d4", "d3", "d2"],
    );
  });
});

Deno.test("read positions never move back under concurrent reads and posts of one participant", async () => {
  await withTable({}, async ({ ctx }) => {
    const { discussion } = await createDiscussion(ctx, CODEX, {
      title: "t",
      body: "1",
      workspace: WS,
    });
    await post(ctx, CODEX, discussion.id, 99); // seqs 1..100
    // 40 concurrent reads by one participant, ending at every seq from 1 to 100 in a shuffled
    // order: whichever lands last, the position is the highest seq any of them showed.
    const ends = Array.from({ length: 40 }, (_, i) => 100 - ((i * 37) % 100));
    await Promise.all(
      ends.map((end) =>
        getDiscussion(ctx, { discussion_id: discussion.id, after_seq: end - 1, limit: 1 }, CLAUDE)
      ),
    );
    assert.equal(await readPosition(ctx, "claude", WS, discussion.id), Math.max(...ends));
    // Concurrent posts by claude and reads by claude: still the highest.
    await Promise.all([
      post(ctx, CLAUDE, discussion.id, 5),
      ...Array.from(
        { length: 10 },
        () => getDiscussion(ctx, { discussion_id: discussion.id, limit: 1 }, CLAUDE),
      ),
    ]);
    assert.equal(await readPosition(ctx, "claude", WS, discussion.id), 105);
    // Another participant's positions were never written.
    const others = await Array.fromAsync(ctx.kv.list({ prefix: ["ws_read", "owner"] }));
    assert.equal(others.length, 0);
  });
});
