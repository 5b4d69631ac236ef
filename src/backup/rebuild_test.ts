import assert from "node:assert/strict";
import { CLAUDE, CODEX, withTable } from "../../tests/support/table_mcp.ts";
import { input, LIMITS } from "../../tests/support/handoff_store.ts";
import { saveHandoff } from "../handoff/store_save.ts";
import { handoffCountKey } from "../handoff/store_schema.ts";
import type { TableCtx } from "../table/store_common.ts";
import { recordDecision, resolveDecision } from "../table/store_decisions.ts";
import { createDiscussion, postMessage } from "../table/store_discussions.ts";
import { createHandoff } from "../table/store_handoffs.ts";
import { recordPlan } from "../table/store_plans.ts";
import { keys, summaryOf } from "../table/store_schema.ts";
import { createTask, updateTask } from "../table/store_tasks.ts";
import { exportKv, importKv } from "./transfer.ts";
import { LIMITS as THINKING, step } from "../../tests/support/thinking_store.ts";
import { addThought } from "../thinking/store_write.ts";
import { DEFAULT_FOCUS_LIMITS } from "../focus/settings.ts";
import { addTask, completeTask } from "../focus/store.ts";
import { followUpBlockKey, projectKey } from "../focus/store_keys.ts";
import { branchKey, sequenceKey, thoughtNumberKey } from "../thinking/store_keys.ts";
import { rebuildDerived } from "./rebuild.ts";

/** A bit of everything the table and the handoff toolset derive data from. */
/** A sequence: two thoughts, a branch from the second, a revision; the record after two kept. */
async function think(kv: Deno.Kv): Promise<{ id: string; early: unknown }> {
  const { sequenceId: id } = await addThought(kv, THINKING, step(1));
  await addThought(kv, THINKING, step(2, { sequenceId: id }));
  const early = (await kv.get(sequenceKey(id))).value;
  await addThought(
    kv,
    THINKING,
    step(3, { sequenceId: id, branchFromThought: 2, branchId: "alt" }),
  );
  await addThought(kv, THINKING, step(4, { sequenceId: id, branchId: "alt" }));
  await addThought(kv, THINKING, step(3, { sequenceId: id }));
  await addThought(kv, THINKING, step(2, { sequenceId: id, isRevision: true, revisesThought: 2 }));
  return { id, early };
}

/** A project with follow-ups opened and one done; the record after the first kept. */
async function focus(kv: Deno.Kv): Promise<unknown> {
  await addTask(kv, DEFAULT_FOCUS_LIMITS, "p", "main work", "main");
  const first = await addTask(kv, DEFAULT_FOCUS_LIMITS, "p", "tidy", "cleanup");
  const early = (await kv.get(projectKey("p"))).value;
  await addTask(kv, DEFAULT_FOCUS_LIMITS, "p", "note it", "record");
  await addTask(kv, DEFAULT_FOCUS_LIMITS, "p", "and this", "cleanup");
  await completeTask(kv, first.id);
  return early;
}

async function seed(ctx: TableCtx): Promise<{ discussion: string; task: string }> {
  const { discussion } = await createDiscussion(ctx, CODEX, { title: "API", body: "REST?" });
  await createDiscussion(ctx, CLAUDE, { title: "Empty", workspace: "acme" });
  for (let i = 0; i < 4; i++) {
    await postMessage(ctx, i % 2 ? CLAUDE : CODEX, { discussion_id: discussion.id, body: `m${i}` });
  }
  const { decision } = await recordDecision(ctx, CODEX, {
    title: "Use REST",
    detail: "because",
    discussion_id: discussion.id,
  });
  await recordDecision(ctx, CODEX, { title: "Open one", detail: "still open" });
  await resolveDecision(ctx, CLAUDE, {
    decision_id: decision.id,
    verdict: "rejected",
    reason: "no",
  });
  const { plan } = await recordPlan(ctx, CODEX, { title: "P1", body: "steps" });
  await recordPlan(ctx, CODEX, { title: "P2", body: "better", supersedes: plan.id });
  const { task } = await createTask(ctx, CODEX, { title: "Build", assigned_to: "codex" });
  const { task: other } = await createTask(ctx, CODEX, { title: "Test" });
  await createHandoff(ctx, CODEX, { task_id: task.id, to: "claude", context: "all yours" });
  await updateTask(ctx, CODEX, { task_id: other.id, status: "done" });
  await saveHandoff(ctx.kv, LIMITS, input({ key: "one" }));
  await saveHandoff(ctx.kv, LIMITS, input({ key: "two" }));
  return { discussion: discussion.id, task: task.id };
}

async function exported(kv: Deno.Kv): Promise<string> {
  let text = "";
  await exportKv(kv, (line) => {
    text += line + "\n";
    return Promise.resolve();
  });
  return text;
}

Deno.test("rebuildDerived() changes nothing in a database whose derived data is right", async () => {
  await withTable({}, async ({ ctx, kv }) => {
    await seed(ctx);
    await think(kv);
    await focus(kv);
    const before = await exported(kv);
    const report = await rebuildDerived(kv);
    assert.deepEqual(report, {
      table: { written: 0, deleted: 0 },
      handoff: { written: 0, deleted: 0 },
      thinking: { written: 0, deleted: 0 },
      focus: { written: 0, deleted: 0 },
    });
    assert.equal(await exported(kv), before);
  });
});

Deno.test("rebuildDerived() puts every counter, index and latest_seq back as the records say", async () => {
  await withTable({}, async ({ ctx, kv }) => {
    const { discussion, task } = await seed(ctx);
    const sequence = await think(kv);
    const project = await focus(kv);
    const right = await exported(kv);
    const d = (await kv.get<{ latest_seq: number; workspace: string }>(keys.discussion(discussion)))
      .value!;
    // What a restore of an export taken under writes looks like, and worse.
    const stale = { ...d, latest_seq: 2 } as never;
    await kv.set(keys.discussion(discussion), stale);
    await kv.set(keys.activity("main", "2000-01-01T00:00:00.000Z", discussion), summaryOf(stale));
    await kv.set(keys.count("main", "tasks_open"), new Deno.KvU64(7n));
    await kv.set(keys.count("main", "handoffs_pending"), new Deno.KvU64(0n));
    await kv.delete(keys.count("main", "discussions"));
    await kv.delete(keys.owner("claude", "main", task));
    await kv.set(keys.wsTask("main", "01BOGUS"), "01BOGUS");
    await kv.set(keys.spoke("main", "codex", "messages"), new Deno.KvU64(1n));
    await kv.set(keys.readPosition("claude", "main", discussion), new Deno.KvU64(99n));
    await kv.set(handoffCountKey(), 9);
    // A sequence read before its last four thoughts and the branch one of them opened.
    await kv.set(sequenceKey(sequence.id), sequence.early);
    await kv.delete(branchKey(sequence.id, "alt"));
    await kv.set(thoughtNumberKey(sequence.id, "main", 2), 2);
    // A project read before two follow-ups were opened, its index after a third was done.
    await kv.set(projectKey("p"), project);
    await kv.set(followUpBlockKey("p", 0), "01XYZ\tcleanup\t2026-01-01T00:00:00.000Z\tgone");
    await kv.set(["task_project", "01NOSUCHTASK"], "p");
    await kv.delete([
      "handoff_time",
      (await kv.list({ prefix: ["handoff_time"] }).next()).value!
        .key[1],
    ]);
    // Import rebuilds it too, before it marks itself done.
    const damaged = await exported(kv);
    const target = await Deno.openKv(":memory:");
    try {
      const lines = () =>
        (async function* () {
          yield* damaged.split("\n").slice(0, -1);
        })();
      await importKv(target, lines, { merge: false, source: "under-writes.jsonl" });
      assert.equal(await exported(target), right);
    } finally {
      target.close();
    }
    const report = await rebuildDerived(kv);
    assert.ok(report.table.written > 0 && report.table.deleted > 0, JSON.stringify(report));
    assert.ok(report.handoff.written === 2, JSON.stringify(report));
    assert.ok(report.thinking.written === 3, JSON.stringify(report));
    assert.deepEqual(report.focus, { written: 2, deleted: 1 });
    assert.equal(await exported(kv), right);
  });
});

Deno.test("rebuildDerived() writes more changes than one atomic takes in several", async () => {
  await withTable({}, async ({ ctx, kv }) => {
    for (let i = 0; i < 150; i++) await createTask(ctx, CODEX, { title: `t${i}` });
    const right = await exported(kv);
    for await (const e of kv.list({ prefix: ["ws_task_in"] })) await kv.delete(e.key);
    for (let i = 0; i < 120; i++) await kv.set(["ws_task_owner", "nobody", "main", `x${i}`], "x");
    assert.deepEqual((await rebuildDerived(kv)).table, { written: 150, deleted: 120 });
    assert.equal(await exported(kv), right);
  });
});
