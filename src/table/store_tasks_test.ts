import assert from "node:assert/strict";
import { CLAUDE, CODEX, fails, withTable } from "../../tests/support/table_mcp.ts";
import { countValue } from "./store_common.ts";
import { keys } from "./store_schema.ts";
import { createTask, getTasks, updateTask } from "./store_tasks.ts";

Deno.test("createTask() with an owner but no handoff says so; handoff: null is always present", async () => {
  await withTable({}, async ({ ctx }) => {
    const owned = (await createTask(ctx, CODEX, { title: "Fix", assigned_to: "Claude" })).task;
    assert.equal(owned.handoff, null);
    assert.ok("handoff" in owned);
    assert.match(owned.note!, /assigned to Claude but no handoff was created: Claude will not see/);
    const free = (await createTask(ctx, CODEX, { title: "Later" })).task;
    assert.equal(free.note, undefined);
    assert.equal(free.handoff, null);
    const listed = await getTasks(ctx, { assigned_to: "claude" });
    assert.equal(listed.total, 1);
    assert.match(listed.tasks[0].note!, /no handoff was created/);
  });
});

Deno.test("updateTask(): someone else closing or blocking a task gets a warning and acted_as", async () => {
  await withTable({}, async ({ ctx }) => {
    const t = (await createTask(ctx, CODEX, { title: "Fix", assigned_to: "claude" })).task;
    const own = await updateTask(ctx, CLAUDE, { task_id: t.id, status: "blocked" });
    assert.equal(own.cross_task_warning, undefined);
    const other = await updateTask(ctx, CODEX, { task_id: t.id, status: "done" });
    assert.match(other.cross_task_warning!, /assigned to claude, not to you \(codex\)/);
    assert.equal(other.acted_as, "codex");
    assert.deepEqual(other.task.updated_by, { name: "codex", via: "token" });
    assert.equal(other.task.note, undefined);
  });
});

Deno.test("updateTask() refuses a call with nothing to change; null unassigns; PARKED counts as parked", async () => {
  await withTable({}, async ({ ctx, kv }) => {
    const t = (await createTask(ctx, CODEX, { title: "PARKED: later", assigned_to: "x" })).task;
    assert.equal(t.parked, true);
    await fails(updateTask(ctx, CODEX, { task_id: t.id }), "invalid", /Nothing to change/);
    const r = await updateTask(ctx, CODEX, { task_id: t.id, assigned_to: null });
    assert.equal(r.task.assigned_to, null);
    assert.equal(r.task.note, undefined);
    assert.equal((await kv.get(keys.owner("x", "main", t.id))).value, null);
    const d = await updateTask(ctx, CODEX, { task_id: t.id, detail: "PARKED until May" });
    assert.equal(d.task.parked, true);
    const plain = (await createTask(ctx, CODEX, { title: "t", detail: "PARKED soon" })).task;
    assert.equal(plain.parked, true);
    assert.equal((await createTask(ctx, CODEX, { title: "not PARKED" })).task.parked, false);
  });
});

Deno.test("task counts by status follow every change", async () => {
  await withTable({}, async ({ ctx, kv }) => {
    const a = (await createTask(ctx, CODEX, { title: "a" })).task;
    await createTask(ctx, CODEX, { title: "b" });
    await updateTask(ctx, CODEX, { task_id: a.id, status: "in_progress" });
    await updateTask(ctx, CODEX, { task_id: a.id, status: "done" });
    const n = async (s: "open" | "in_progress" | "done") =>
      countValue(await kv.get(keys.count("main", `tasks_${s}`)));
    assert.deepEqual([await n("open"), await n("in_progress"), await n("done")], [1, 0, 1]);
    const done = await getTasks(ctx, { status: "done" });
    assert.equal(done.total, 1);
  });
});

Deno.test("updateTask() racing: concurrent changes keep counts and the owner index consistent", async () => {
  await withTable({}, async ({ ctx, kv }) => {
    const t = (await createTask(ctx, CODEX, { title: "a", assigned_to: "a" })).task;
    await Promise.all(
      ["b", "c", "d", "e"].map((who, i) =>
        updateTask(ctx, CODEX, {
          task_id: t.id,
          assigned_to: who,
          status: i % 2 ? "blocked" : "in_progress",
        })
      ),
    );
    const final = (await getTasks(ctx, {})).tasks[0];
    const owners = await Array.fromAsync(kv.list({ prefix: ["ws_task_owner"] }));
    assert.deepEqual(owners.map((e) => e.key[1]), [final.assigned_to]);
    const sum = (await Promise.all(
      (["open", "in_progress", "blocked", "done"] as const).map(async (s) =>
        countValue(await kv.get(keys.count("main", `tasks_${s}`)))
      ),
    )).reduce((a, b) => a + b);
    assert.equal(sum, 1);
  });
});

Deno.test("getTasks() pages newest first and counts every match, filtered or not", async () => {
  await withTable({}, async ({ ctx }) => {
    const made = [];
    for (let i = 0; i < 5; i++) {
      made.push(
        (await createTask(ctx, CODEX, {
          title: `T${i}`,
          assigned_to: i % 2 ? "claude" : undefined,
        })).task,
      );
    }
    await updateTask(ctx, CODEX, { task_id: made[0].id, status: "done" });
    const page = await getTasks(ctx, { limit: 2 });
    assert.deepEqual(page.tasks.map((t) => t.title), ["T4", "T3"]);
    assert.equal(page.total, 5);
    assert.equal(page.has_more, true);
    const open = await getTasks(ctx, { status: "open", limit: 3 });
    assert.deepEqual(open.tasks.map((t) => t.title), ["T4", "T3", "T2"]);
    assert.equal(open.total, 4);
    assert.equal(open.has_more, true);
    const theirs = await getTasks(ctx, { assigned_to: "CLAUDE", limit: 5 });
    assert.deepEqual(theirs.tasks.map((t) => t.title), ["T3", "T1"]);
    assert.equal(theirs.has_more, false);
  });
});
