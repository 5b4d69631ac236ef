/**
 * What the index must never show, whatever folded or merged: overwritten, evicted, merged-away,
 * deleted items, behind any backlog; and what merges keep.
 */

import assert from "node:assert/strict";
import { call, type McpClient, withMcpClient } from "../../tests/support/mcp.ts";
import { SEARCH_SOURCES } from "../toolsets.ts";
import { foldAll } from "./indexer.ts";
import { mergeOnce } from "./merge.ts";

const sources = new Map(SEARCH_SOURCES.map((s) => [s.kind, s]));

interface Found {
  results: { id: string; kind: string }[];
}

async function find(client: McpClient, args: Record<string, unknown>): Promise<Found> {
  const r = await call(client, "search", args);
  assert.equal(r.isError, false, r.text);
  return r.structured as unknown as Found;
}

async function bothWays(kv: Deno.Kv, check: () => Promise<void>): Promise<void> {
  await check();
  await foldAll(kv, sources, 400);
  await check();
}

async function post(client: McpClient, body: string): Promise<void> {
  const r = await call(client, "create_discussion", { title: "Notes", body });
  assert.equal(r.isError, false, r.text);
}

Deno.test("search: overwrites, evictions, merges and comment deletes are never returned", async () => {
  await withMcpClient(
    { env: { HANDOFF_MAX_COUNT: "2", HANDOFF_EVICT: "true" } },
    async ({ client, kv }) => {
      const save = async (key: string, words: string) => {
        const r = await call(client, "handoff_save", {
          key,
          summary: "s",
          conversation: `## User\n${words}\n`,
        });
        assert.equal(r.isError, false, r.text);
      };
      const kinds = async (query: string) =>
        (await find(client, { query })).results.map((r) => r.id);
      await save("a", "alphaword");
      await foldAll(kv, sources, 400);
      await save("a", "betaword"); // overwrite
      const c = await call(client, "handoff_add_comment", { key: "a", content: "gammaword" });
      const commentId = c.structured.comment_id as string;
      // A small handoff's new text replaces the old one at once, and after folding.
      assert.deepEqual(await kinds("alphaword"), []);
      assert.deepEqual(await kinds("betaword"), ["handoff:a"]);
      assert.equal((await kinds("gammaword")).length, 1);
      await foldAll(kv, sources, 400);
      assert.deepEqual(await kinds("alphaword"), []);
      assert.deepEqual(await kinds("betaword"), ["handoff:a"]);
      assert.equal((await kinds("gammaword")).length, 1);
      await call(client, "handoff_delete_comment", { key: "a", comment_id: commentId });
      await bothWays(kv, async () => assert.deepEqual(await kinds("gammaword"), []));
      await save("b", "deltaword");
      await save("c", "epsilonword"); // evicts "a", the oldest
      await foldAll(kv, sources, 400);
      await bothWays(kv, async () => {
        assert.deepEqual(await kinds("betaword"), []);
        assert.deepEqual(await kinds("deltaword"), ["handoff:b"]);
      });
      const m = await call(client, "handoff_merge", {
        keys: ["b", "c"],
        new_key: "bc",
        delete_sources: true,
      });
      assert.equal(m.isError, false, m.text);
      assert.deepEqual(await kinds("deltaword"), []);
      await foldAll(kv, sources, 400);
      assert.deepEqual(await kinds("deltaword"), ["handoff:bc"]);
      assert.deepEqual(await kinds("epsilonword"), ["handoff:bc"]);
    },
  );
});

Deno.test("search: merged segments still find everything, and drops reach items merged", async () => {
  await withMcpClient({}, async ({ client, kv }) => {
    let taskId = "";
    for (let i = 0; i < 9; i++) {
      await post(client, `merged message number${i}`);
      if (i === 4) {
        const t = await call(client, "create_task", { title: "Mergetask", detail: "oldwords" });
        taskId = (t.structured.task as { id: string }).id;
      }
      await foldAll(kv, sources, 400);
    }
    const segs = async () => (await Array.fromAsync(kv.list({ prefix: ["search", "seg"] }))).length;
    assert.equal(await segs(), 9);
    const merged = await mergeOnce(kv, (k) => sources.get(k)?.mutable === true);
    assert.equal(merged?.segments, 9);
    assert.equal(await segs(), 1);
    assert.equal((await find(client, { query: "merged", limit: 20 })).results.length, 9);
    assert.equal((await find(client, { query: "number7" })).results.length, 1);
    assert.equal((await find(client, { query: "oldwords" })).results.length, 1);
    await call(client, "update_task", { task_id: taskId, detail: "newwords" });
    await bothWays(kv, async () => {
      assert.equal((await find(client, { query: "oldwords" })).results.length, 0);
      assert.equal((await find(client, { query: "newwords" })).results.length, 1);
    });
    // The old segments' keys are gone: blocks and postings under their numbers.
    const left = await Array.fromAsync(kv.list<unknown>({ prefix: ["search", "blk"] }));
    assert.ok(left.every((e) => (e.key[2] as number) > 9), "only new segments' blocks remain");
  });
});

Deno.test("search: an overwrite or delete is never shown, however long the backlog of new records", async () => {
  await withMcpClient({ env: { SEARCH_PENDING_SCAN: "10" } }, async ({ client, kv }) => {
    const t = await call(client, "create_task", { title: "Backlogged", detail: "staleword" });
    const id = (t.structured.task as { id: string }).id;
    await call(client, "handoff_save", {
      key: "k",
      summary: "s",
      conversation: "## User\ngoneword\n",
    });
    await foldAll(kv, sources, 400);
    await call(client, "update_task", { task_id: id, detail: "freshword" });
    await call(client, "handoff_clear", { key: "k" });
    for (let i = 0; i < 30; i++) await post(client, `backlog ${i}`);
    assert.equal((await find(client, { query: "staleword" })).results.length, 0);
    assert.equal((await find(client, { query: "goneword" })).results.length, 0);
  });
});
