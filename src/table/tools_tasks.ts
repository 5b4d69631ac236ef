/** Task and handoff tools: owners, status, and work handed over with its context. */

import { z } from "zod";
import { pagedResult } from "../tools/result_budget.ts";
import { READ_ONLY, writes } from "../tools/annotations.ts";
import { callerOf } from "../tools/caller.ts";
import { NOTES_FIELD, UNTRUSTED_FIELDS } from "../tools/results.ts";
import { advertisedAs, nullableString, toolArgs } from "../tools/schema.ts";
import type { ToolRegistrar } from "../tools/registry.ts";
import { renderHandoff, renderHandoffs, renderTask, renderTasks } from "./render.ts";
import { handoffSchema, taskSchema } from "./schemas.ts";
import { acceptHandoff, createHandoff, getHandoffs } from "./store_handoffs.ts";
import { HANDOFF_STATES, TASK_STATUSES } from "./store_schema.ts";
import { createTask, getTasks, updateTask } from "./store_tasks.ts";
import {
  BY_ID,
  contractDescription,
  fields,
  LIST_FIELDS,
  listRead,
  moreNotes,
  nonce,
  result,
  type TableToolDeps,
  textsAt,
  WORKSPACE_FIELDS,
} from "./tools_common.ts";

/** Registers the task and handoff tools. */
export function registerTaskTools(server: ToolRegistrar, t: TableToolDeps): void {
  registerCreateTaskTool(server, t);
  registerUpdateTaskTool(server, t);
  registerGetTasksTool(server, t);
  registerCreateHandoffTool(server, t);
  registerGetHandoffsTool(server, t);
  registerAcceptHandoffTool(server, t);
}

/** Registers `create_task`. */
function registerCreateTaskTool(server: ToolRegistrar, t: TableToolDeps): void {
  const f = fields(t.settings);

  server.registerTool("create_task", {
    title: "Create a task",
    description: contractDescription(
      "Creates an open task. assigned_to alone does NOT hand it over: the owner gets context only by create_handoff.",
    ),
    inputSchema: toolArgs({
      title: f.title,
      detail: f.taskDetail.optional(),
      workspace: f.workspace,
      discussion_id: f.id("discussion").optional(),
      assigned_to: f.name("The owner").optional(),
    }),
    outputSchema: { task: taskSchema, ...WORKSPACE_FIELDS },
    annotations: writes({ destructive: false, idempotent: false }),
  }, async (args, call) => {
    const r = await createTask(t.ctx, callerOf(call, t.deps), args);
    return result(`Created: ${renderTask(r.task)}`, r);
  });
}

/** Registers `update_task`. */
function registerUpdateTaskTool(server: ToolRegistrar, t: TableToolDeps): void {
  const f = fields(t.settings);

  server.registerTool("update_task", {
    title: "Update a task",
    description: contractDescription(
      "Changes a task's status, owner or detail as you; finishing or blocking another's task is flagged.",
    ),
    inputSchema: toolArgs({
      task_id: f.id("task"),
      status: z.enum(TASK_STATUSES).optional().describe("The new status"),
      // Listed as a string (clients take one type per argument); null still unassigns.
      assigned_to: advertisedAs(
        z.string().nullable(),
        {
          type: "string",
        },
        "The new owner, or null",
      )
        .optional(),
      detail: f.taskDetail.optional(),
    }),
    outputSchema: {
      ...UNTRUSTED_FIELDS,
      task: taskSchema,
      changed: z.array(z.string()),
      cross_task_warning: z.string().optional(),
      acted_as: z.string().optional(),
    },
    annotations: writes({ destructive: false, idempotent: true }),
  }, async (args, call) => {
    const r = await updateTask(t.ctx, callerOf(call, t.deps), args);
    const warning = r.cross_task_warning ? `\n⚠ ${r.cross_task_warning}` : "";
    return result(`Updated (${r.changed.join(", ")}): ${renderTask(r.task)}${warning}`, r, {
      untrusted: { nonce: nonce(), fields: textsAt("task", "task") },
    });
  });
}

/** Registers `get_tasks`. */
function registerGetTasksTool(server: ToolRegistrar, t: TableToolDeps): void {
  const f = fields(t.settings);

  server.registerTool("get_tasks", {
    title: "List tasks",
    description: contractDescription(
      "Lists a workspace's tasks, newest first, with owner and waiting handoff (or null).",
    ),
    inputSchema: toolArgs({
      workspace: f.workspace,
      status: z.enum(TASK_STATUSES).optional().describe("Only this status"),
      assigned_to: f.name("Only this owner's").optional(),
      limit: f.limit,
      after_id: f.afterId,
    }),
    outputSchema: {
      ...UNTRUSTED_FIELDS,
      ...LIST_FIELDS,
      tasks: z.array(taskSchema),
      ...NOTES_FIELD,
    },
    annotations: READ_ONLY,
  }, async (args) => {
    const r = await getTasks(t.ctx, args);
    const n = nonce();
    return pagedResult(
      listRead(r, "tasks", "get_tasks", (shown, more) =>
        result(renderTasks(shown), shown, {
          untrusted: { nonce: n, fields: textsAt("tasks[]", "task") },
          notes: [...moreNotes(shown, "raise limit or filter"), ...more],
        }), BY_ID),
    );
  });
}

/** Registers `create_handoff`. */
function registerCreateHandoffTool(server: ToolRegistrar, t: TableToolDeps): void {
  const f = fields(t.settings);

  server.registerTool("create_handoff", {
    title: "Hand a task over",
    description: contractDescription(
      "Hands a task over with the context needed; the receiver becomes owner, sees it waiting and takes it with accept_handoff. A newer handoff supersedes it; a done task makes it obsolete.",
    ),
    inputSchema: toolArgs({
      task_id: f.id("task"),
      to: f.name("The new owner"),
      context: z.string().describe(
        "All they need to go on",
      ),
    }),
    outputSchema: {
      ...UNTRUSTED_FIELDS,
      handoff: handoffSchema,
      task: taskSchema,
      superseded: nullableString(),
    },
    annotations: writes({ destructive: false, idempotent: false }),
  }, async (args, call) => {
    const r = await createHandoff(t.ctx, callerOf(call, t.deps), args);
    const superseded = r.superseded ? `\nHandoff ${r.superseded} is now superseded.` : "";
    const n = nonce();
    return result(`Handed off: ${renderHandoff(r.handoff, n)}${superseded}`, r, {
      untrusted: {
        nonce: n,
        fields: [...textsAt("handoff", "handoff"), ...textsAt("task", "task")],
      },
    });
  });
}

/** Registers `get_handoffs`. */
function registerGetHandoffsTool(server: ToolRegistrar, t: TableToolDeps): void {
  const f = fields(t.settings);

  server.registerTool("get_handoffs", {
    title: "List handoffs",
    description: contractDescription(
      "Lists a workspace's handoffs, newest first, each waiting, stale, accepted, obsolete (task done) or superseded.",
    ),
    inputSchema: toolArgs({
      workspace: f.workspace,
      status: z.enum(HANDOFF_STATES).optional().describe("Only this state"),
      to: f.name("Only those to").optional(),
      task_id: f.id("task").optional(),
      limit: f.limit,
      after_id: f.afterId,
    }),
    outputSchema: {
      ...UNTRUSTED_FIELDS,
      ...LIST_FIELDS,
      handoffs: z.array(handoffSchema),
      ...NOTES_FIELD,
    },
    annotations: READ_ONLY,
  }, async (args) => {
    const r = await getHandoffs(t.ctx, args);
    const n = nonce();
    return pagedResult(
      listRead(
        r,
        "handoffs",
        "get_handoffs",
        (shown, more) =>
          result(renderHandoffs(shown, n), shown, {
            untrusted: { nonce: n, fields: textsAt("handoffs[]", "handoff") },
            notes: [...moreNotes(shown, "raise limit or filter"), ...more],
          }),
        BY_ID,
      ),
    );
  });
}

/** Registers `accept_handoff`. */
function registerAcceptHandoffTool(server: ToolRegistrar, t: TableToolDeps): void {
  const f = fields(t.settings);

  server.registerTool("accept_handoff", {
    title: "Accept a handoff",
    description: contractDescription(
      "Takes a handoff: its task becomes in_progress, yours. Read its context first (get_handoffs). Refused once accepted, obsolete or superseded.",
    ),
    inputSchema: toolArgs({ handoff_id: f.id("handoff") }),
    outputSchema: {
      ...UNTRUSTED_FIELDS,
      handoff: handoffSchema,
      task: taskSchema,
      warning: z.string().optional(),
    },
    annotations: writes({ destructive: false, idempotent: false }),
  }, async (args, call) => {
    const r = await acceptHandoff(t.ctx, callerOf(call, t.deps), args);
    const warning = r.warning ? `\n⚠ ${r.warning}` : "";
    const n = nonce();
    return result(`Accepted: ${renderHandoff(r.handoff, n)}\n${renderTask(r.task)}${warning}`, r, {
      untrusted: {
        nonce: n,
        fields: [...textsAt("handoff", "handoff"), ...textsAt("task", "task")],
      },
    });
  });
}
