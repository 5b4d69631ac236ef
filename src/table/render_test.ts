import assert from "node:assert/strict";
import { renderDecisions, renderHandoffs, renderPlans, renderTasks } from "./render.ts";

Deno.test("a list's first line names the workspace, shown of total, and how to see more when cut", () => {
  const cut = { workspace: "acme/app", has_more: true, total: 7 };
  const whole = { ...cut, has_more: false, total: 0 };
  assert.equal(
    renderDecisions({ ...cut, decisions: [] }, "n"),
    'Decisions in workspace "acme/app": showing 0 of 7 (more exist: raise limit or filter by status).',
  );
  assert.equal(
    renderPlans({ ...cut, plans: [] }, "n"),
    'Plans in workspace "acme/app": showing 0 of 7 (more exist: raise limit).',
  );
  assert.equal(
    renderTasks({ ...cut, tasks: [] }),
    'Tasks in workspace "acme/app": showing 0 of 7 (more exist: raise limit or filter).',
  );
  assert.equal(
    renderHandoffs({ ...cut, handoffs: [] }, "n"),
    'Handoffs in workspace "acme/app": showing 0 of 7 (more exist: raise limit or filter).',
  );
  assert.equal(
    renderTasks({ ...whole, tasks: [] }),
    'Tasks in workspace "acme/app": showing 0 of 0.',
  );
});
