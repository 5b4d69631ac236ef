import assert from "node:assert/strict";
import { CODEX, fails, withTable } from "../../tests/support/table_mcp.ts";
import { recordDecision } from "./store_decisions.ts";
import { acceptHandoff, createHandoff } from "./store_handoffs.ts";
import { ownerQueue, readDecision, readHandoff } from "./store_queue.ts";
import { createTask } from "./store_tasks.ts";

Deno.test("ownerQueue() gathers every workspace: stale handoffs first, oldest decisions first", async () => {
  await withTable({}, async ({ ctx, clock }) => {
    const ada = { name: "Ada", via: "console" as const };
    const first = await recordDecision(ctx, CODEX, { title: "old", detail: "d", workspace: "a" });
    clock.advanceDays(1);
    await recordDecision(ctx, CODEX, { title: "new", detail: "d", workspace: "b" });
    const t1 = await createTask(ctx, CODEX, { title: "t1", workspace: "a" });
    const old = await createHandoff(ctx, CODEX, { task_id: t1.task.id, to: "ada", context: "c" });
    clock.advanceDays(10);
    const t2 = await createTask(ctx, CODEX, { title: "t2", workspace: "b" });
    await createHandoff(ctx, CODEX, { task_id: t2.task.id, to: "Ada", context: "c" });
    await createTask(ctx, CODEX, { title: "mine", workspace: "c", assigned_to: "ada" });
    const t4 = await createTask(ctx, CODEX, { title: "taken", workspace: "c" });
    const taken = await createHandoff(ctx, CODEX, { task_id: t4.task.id, to: "ada", context: "c" });
    await acceptHandoff(ctx, ada, { handoff_id: taken.handoff.id });
    const q = await ownerQueue(ctx, "Ada", 50);
    assert.deepEqual(q.decisions.items.map((d) => d.title), ["old", "new"]);
    assert.deepEqual(q.handoffs.items.map((h) => [h.task_title, h.state]), [
      ["t1", "stale"],
      ["t2", "waiting"],
    ]);
    assert.deepEqual(q.tasks.items.map((t) => t.title).sort(), ["mine", "taken"]);
    const cut = await ownerQueue(ctx, "ada", 1);
    assert.deepEqual([cut.decisions.total, cut.decisions.has_more], [2, true]);
    assert.equal((await readDecision(ctx, first.decision.id)).title, "old");
    assert.equal((await readHandoff(ctx, old.handoff.id)).state, "stale");
    await fails(readDecision(ctx, "01ARZ3NDEKTSV4RRFFQ69G5FAV"), "not_found", /No decision/);
    await fails(readHandoff(ctx, "nope"), "not_found", /No handoff/);
  });
});
