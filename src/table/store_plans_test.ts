import assert from "node:assert/strict";
import { ulid } from "../kit/ids.ts";
import { CODEX, fails, withTable } from "../../tests/support/table_mcp.ts";
import { getPlans, latestPlan, recordPlan } from "./store_plans.ts";

Deno.test("recordPlan() with supersedes hides the old plan unless include_superseded", async () => {
  await withTable({}, async ({ ctx }) => {
    const v1 = (await recordPlan(ctx, CODEX, { title: "v1", body: "first" })).plan;
    const v2 = (await recordPlan(ctx, CODEX, { title: "v2", body: "second", supersedes: v1.id }))
      .plan;
    assert.equal(v2.supersedes, v1.id);
    const current = await getPlans(ctx, {});
    assert.deepEqual(current.plans.map((p) => p.id), [v2.id]);
    assert.equal(current.total, 1);
    const all = await getPlans(ctx, { include_superseded: true });
    assert.deepEqual(all.plans.map((p) => [p.id, p.superseded_by]), [[v2.id, null], [
      v1.id,
      v2.id,
    ]]);
    assert.equal((await latestPlan(ctx, "main"))?.id, v2.id);
    await fails(
      recordPlan(ctx, CODEX, { title: "fork", body: "b", supersedes: v1.id }),
      "conflict",
      new RegExp(`already superseded by plan ${v2.id}`),
    );
    await fails(
      recordPlan(ctx, CODEX, { title: "x", body: "b", supersedes: v2.id, workspace: "other" }),
      "invalid",
      /in workspace "main", not "other"/,
    );
    await fails(
      recordPlan(ctx, CODEX, { title: "x", body: "b".repeat(48 * 1024 + 1) }),
      "too_large",
      /at most 49152 bytes \(TABLE_BODY_MAX_BYTES\)/,
    );
  });
});

Deno.test("recordPlan() names an unknown decision or plan as not found, and where they are listed", async () => {
  await withTable({}, async ({ ctx }) => {
    const nobody = ulid(Date.now());
    await fails(
      recordPlan(ctx, CODEX, { title: "x", body: "b", decision_id: nobody }),
      "not_found",
      new RegExp(`No decision has id ${nobody}: get_decisions lists them`),
    );
    await fails(
      recordPlan(ctx, CODEX, { title: "x", body: "b", supersedes: nobody }),
      "not_found",
      new RegExp(`No plan has id ${nobody}: get_plans lists them`),
    );
    assert.equal((await getPlans(ctx, { include_superseded: true })).total, 0);
  });
});

Deno.test("recordPlan() racing: two plans superseding one, exactly one wins", async () => {
  await withTable({}, async ({ ctx }) => {
    const v1 = (await recordPlan(ctx, CODEX, { title: "v1", body: "first" })).plan;
    const outcomes = await Promise.allSettled([
      recordPlan(ctx, CODEX, { title: "a", body: "a", supersedes: v1.id }),
      recordPlan(ctx, CODEX, { title: "b", body: "b", supersedes: v1.id }),
    ]);
    assert.equal(outcomes.filter((o) => o.status === "fulfilled").length, 1);
    assert.equal((await getPlans(ctx, {})).total, 1);
  });
});
