import assert from "node:assert/strict";
import { CLAUDE, CODEX, OWNER, withTable } from "../../tests/support/table_mcp.ts";
import { countValue, type TableCtx } from "./store_common.ts";
import { getParticipants, getWorkspaceContext } from "./store_context.ts";
import { recordDecision, resolveDecision, setDecisionScope } from "./store_decisions.ts";
import { createDiscussion, postMessage } from "./store_discussions.ts";
import { acceptHandoff, createHandoff } from "./store_handoffs.ts";
import { recordPlan } from "./store_plans.ts";
import { type CountName, keys, type StoredTask } from "./store_schema.ts";
import { createTask, updateTask } from "./store_tasks.ts";

const TOP_KEYS = [
  "contract",
  "workspace",
  "you_are",
  "standing_rules",
  "participants",
  "open_items",
  "discussions",
  "has_more",
  "total_discussions",
  "quiet_discussions",
  "elsewhere",
];
const OPEN_ITEM_KEYS = [
  "decisions_awaiting",
  "plans_current",
  "latest_plan",
  "tasks",
  "handoffs_pending",
  "handoffs_inactive",
  "waiting_for_you",
  "unread",
  "health",
];

/** A standing rule: a decision codex proposes, the owner approves and scopes with the code; its id. */
async function standingRule(ctx: TableCtx, title: string): Promise<string> {
  const d = (await recordDecision(ctx, CODEX, { title, detail: "d" })).decision;
  const code = "secret-code";
  await resolveDecision(ctx, OWNER, {
    decision_id: d.id,
    verdict: "approved",
    reason: "r",
    approval_code: code,
  });
  await setDecisionScope(ctx, OWNER, {
    decision_id: d.id,
    scope: "workspace",
    approval_code: code,
  });
  return d.id;
}

Deno.test("getWorkspaceContext() returns exactly the pinned keys", async () => {
  await withTable({}, async ({ ctx }) => {
    const c = await getWorkspaceContext(ctx, CODEX, {});
    assert.deepEqual(Object.keys(c).sort(), [...TOP_KEYS].sort());
    assert.deepEqual(Object.keys(c.open_items).sort(), [...OPEN_ITEM_KEYS].sort());
    assert.deepEqual(Object.keys(c.open_items.waiting_for_you).sort(), [
      "in_progress",
      "total",
      "unaccepted",
    ]);
    assert.deepEqual(Object.keys(c.open_items.waiting_for_you.unaccepted).sort(), [
      "handoffs",
      "tasks",
      "total",
    ]);
    assert.deepEqual(Object.keys(c.open_items.tasks).sort(), ["blocked", "in_progress", "open"]);
    assert.equal(c.contract, 1);
    assert.equal(c.workspace, "main");
    assert.deepEqual(c.you_are.name, "codex");
  });
});

Deno.test("waiting_for_you matches the name case-insensitively and counts a handed-off task once", async () => {
  await withTable({}, async ({ ctx }) => {
    const handed = (await createTask(ctx, CODEX, { title: "handed" })).task;
    const h = await createHandoff(ctx, CODEX, { task_id: handed.id, to: "CLAUDE", context: "c" });
    const plain = (await createTask(ctx, CODEX, { title: "assigned", assigned_to: "Claude" })).task;
    let w = (await getWorkspaceContext(ctx, CLAUDE, {})).open_items.waiting_for_you;
    assert.deepEqual(w.unaccepted, { handoffs: [h.handoff.id], tasks: [plain.id], total: 2 });
    assert.deepEqual(w.in_progress, { tasks: [], total: 0 });
    assert.equal(w.total, 2);
    await acceptHandoff(ctx, CLAUDE, { handoff_id: h.handoff.id });
    w = (await getWorkspaceContext(ctx, CLAUDE, {})).open_items.waiting_for_you;
    assert.deepEqual(w.unaccepted, { handoffs: [], tasks: [plain.id], total: 1 });
    assert.deepEqual(w.in_progress, { tasks: [handed.id], total: 1 });
    assert.equal(w.total, 2);
    await updateTask(ctx, CLAUDE, { task_id: handed.id, status: "done" });
    w = (await getWorkspaceContext(ctx, CLAUDE, {})).open_items.waiting_for_you;
    assert.equal(w.total, 1);
    assert.equal((await getWorkspaceContext(ctx, CODEX, {})).open_items.waiting_for_you.total, 0);
  });
});

Deno.test("elsewhere shows what waits for the caller in other workspaces", async () => {
  await withTable({}, async ({ ctx }) => {
    const t = (await createTask(ctx, CODEX, { title: "x", workspace: "acme/api" })).task;
    const h = await createHandoff(ctx, CODEX, { task_id: t.id, to: "claude", context: "c" });
    const other = (await createTask(ctx, CODEX, {
      title: "y",
      workspace: "acme/web",
      assigned_to: "claude",
    })).task;
    const c = await getWorkspaceContext(ctx, CLAUDE, {});
    assert.equal(c.open_items.waiting_for_you.total, 0);
    assert.equal(c.elsewhere.total, 2);
    assert.deepEqual(c.elsewhere.workspaces, [
      { workspace: "acme/api", handoffs: [h.handoff.id], tasks: [], total: 1 },
      { workspace: "acme/web", handoffs: [], tasks: [other.id], total: 1 },
    ]);
    const here = await getWorkspaceContext(ctx, CLAUDE, { workspace: "ACME/API" });
    assert.equal(here.open_items.waiting_for_you.total, 1);
    assert.equal(here.elsewhere.total, 1);
  });
});

Deno.test("the context shows rules, awaiting decisions, plans, stale handoffs, health and quiet discussions", async () => {
  await withTable({ APPROVAL_SECRET: "secret-code" }, async ({ ctx, clock }) => {
    const ruleId = await standingRule(ctx, "Test first");
    await recordDecision(ctx, CODEX, { title: "Awaiting", detail: "d" });
    await recordPlan(ctx, CODEX, { title: "Plan A", body: "b" });
    const d = await createDiscussion(ctx, CODEX, { title: "Old talk", body: "x" });
    const t = (await createTask(ctx, CODEX, { title: "t" })).task;
    await createHandoff(ctx, CODEX, { task_id: t.id, to: "claude", context: "c" });
    clock.advanceDays(8);
    await createDiscussion(ctx, CLAUDE, { title: "New talk", body: "x" });
    const c = await getWorkspaceContext(ctx, CODEX, {});
    assert.deepEqual(c.standing_rules.map((r) => r.id), [ruleId]);
    assert.equal(c.open_items.decisions_awaiting.total, 1);
    assert.equal(c.open_items.plans_current, 1);
    assert.equal(c.open_items.latest_plan?.title, "Plan A");
    assert.deepEqual(c.open_items.tasks, { open: 1, in_progress: 0, blocked: 0 });
    assert.equal(c.open_items.handoffs_pending.total, 1);
    assert.equal(c.open_items.handoffs_inactive.total, 1);
    assert.equal(c.open_items.health.status, "attention");
    assert.deepEqual(c.discussions.map((x) => x.title), ["New talk", "Old talk"]);
    assert.equal(c.total_discussions, 2);
    assert.equal(c.has_more, false);
    assert.deepEqual(c.quiet_discussions.items.map((x) => x.id), [d.discussion.id]);
    const cut = await getWorkspaceContext(ctx, CODEX, { limit: 1, quiet_for_days: 30 });
    assert.equal(cut.discussions.length, 1);
    assert.equal(cut.has_more, true);
    assert.deepEqual(cut.quiet_discussions.items, []);
  });
});

Deno.test("getParticipants() separates messages from actions and lists every via and client id", async () => {
  await withTable({}, async ({ ctx }) => {
    const { discussion } = await createDiscussion(ctx, CODEX, { title: "t", body: "hi" });
    await postMessage(ctx, { name: "Codex", via: "header" }, {
      discussion_id: discussion.id,
      body: "again",
    });
    await postMessage(ctx, { name: "codex", via: "oauth", clientId: "c-1" }, {
      discussion_id: discussion.id,
      body: "and again",
    });
    await createTask(ctx, CLAUDE, { title: "x" });
    const r = await getParticipants(ctx, {});
    const codex = r.participants.find((p) => p.name.toLowerCase() === "codex")!;
    assert.equal(codex.messages, 3);
    assert.equal(codex.actions, 1);
    assert.deepEqual(codex.vias.sort(), ["header", "oauth", "token"]);
    assert.deepEqual(codex.client_ids, ["c-1"]);
    const claude = r.participants.find((p) => p.name === "claude")!;
    assert.deepEqual([claude.messages, claude.actions], [0, 1]);
    assert.match(r.limitations, /a token can be passed on|tokens can be passed on/);
  });
});

/** Recounts every counter by scanning the records, to check the counters kept in atomics. */
async function assertCountsMatchRecords(ctx: TableCtx, ws: string): Promise<void> {
  const tasks = await Array.fromAsync(ctx.kv.list<StoredTask>({ prefix: ["ws_task"] }));
  const expect: Partial<Record<CountName, number>> = {
    tasks_open: 0,
    tasks_in_progress: 0,
    tasks_blocked: 0,
    tasks_done: 0,
    handoffs_pending: 0,
  };
  for (const { value: t } of tasks) {
    if (t.workspace !== ws) continue;
    expect[`tasks_${t.status}`]! += 1;
    if (t.status !== "done" && t.handoff !== null) expect.handoffs_pending! += 1;
  }
  for (const [name, n] of Object.entries(expect)) {
    assert.equal(countValue(await ctx.kv.get(keys.count(ws, name as CountName))), n, name);
  }
  const pending = await Array.fromAsync(ctx.kv.list({ prefix: keys.pendingIn(ws) }));
  assert.equal(pending.length, expect.handoffs_pending);
}

Deno.test("counters stay equal to a recount after a seeded mix of concurrent writes", async () => {
  await withTable({}, async ({ ctx }) => {
    const names = ["codex", "claude", "gemini"];
    const tasks = await Promise.all(
      Array.from({ length: 6 }, (_, i) => createTask(ctx, CODEX, { title: `t${i}` })),
    );
    let seed = 7;
    const rand = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    const ops: Promise<unknown>[] = [];
    for (let i = 0; i < 60; i++) {
      const task = tasks[rand(tasks.length)].task;
      const who = { name: names[rand(3)], via: "token" as const };
      const op = rand(3);
      if (op === 0) {
        ops.push(createHandoff(ctx, who, { task_id: task.id, to: names[rand(3)], context: "c" }));
      } else if (op === 1) {
        const status = (["open", "in_progress", "blocked", "done"] as const)[rand(4)];
        ops.push(updateTask(ctx, who, { task_id: task.id, status }));
      } else {
        ops.push(
          (async () => {
            const c = await getWorkspaceContext(ctx, who, {});
            const id = c.open_items.handoffs_pending.items[0]?.id;
            if (id) await acceptHandoff(ctx, who, { handoff_id: id });
          })(),
        );
      }
    }
    const settled = await Promise.allSettled(ops);
    for (const s of settled) {
      if (s.status === "rejected") assert.equal(s.reason.kind, "conflict", s.reason.message);
    }
    await assertCountsMatchRecords(ctx, "main");
  });
});

Deno.test("lists without has_more of their own say in health when the limit cut them", async () => {
  await withTable({ APPROVAL_SECRET: "secret-code" }, async ({ ctx }) => {
    for (const title of ["Rule one", "Rule two"]) await standingRule(ctx, title);
    await createTask(ctx, CLAUDE, { title: "x" });
    const full = await getWorkspaceContext(ctx, CODEX, {});
    assert.equal(full.standing_rules.length, 2);
    assert.equal(full.open_items.health.problems.length, 0);
    const cut = await getWorkspaceContext(ctx, CODEX, { limit: 1 });
    assert.equal(cut.standing_rules.length, 1);
    assert.equal(cut.participants.length, 1);
    assert.equal(cut.open_items.health.status, "attention");
    assert.match(cut.open_items.health.problems.join("\n"), /standing_rules shows 1 of 2/);
    assert.match(cut.open_items.health.problems.join("\n"), /participants shows 1 of 3/);
    const people = await getParticipants(ctx, { limit: 2 });
    assert.deepEqual([people.participants.length, people.has_more, people.total], [2, true, 3]);
  });
});
