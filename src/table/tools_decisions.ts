/** Decision and plan tools: propose, resolve (people decide), scope, and plans that supersede. */

import { z } from "zod";
import { pagedResult } from "../tools/result_budget.ts";
import { READ_ONLY, writes } from "../tools/annotations.ts";
import { callerOf } from "../tools/caller.ts";
import { NOTES_FIELD, UNTRUSTED_FIELDS } from "../tools/results.ts";
import { advertisedAs, toolArgs } from "../tools/schema.ts";
import type { ToolRegistrar } from "../tools/registry.ts";
import { renderDecision, renderDecisions, renderPlan, renderPlans } from "./render.ts";
import { decisionSchema, planSchema } from "./schemas.ts";
import {
  getDecisions,
  recordDecision,
  resolveDecision,
  setDecisionScope,
} from "./store_decisions.ts";
import { getPlans, recordPlan } from "./store_plans.ts";
import { DECISION_SCOPES, DECISION_STATUSES } from "./store_schema.ts";
import {
  APPROVAL_CODE,
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

/** Registers the decision and plan tools. */
export function registerDecisionTools(server: ToolRegistrar, t: TableToolDeps): void {
  registerRecordDecisionTool(server, t);
  registerGetDecisionsTool(server, t);
  registerResolveDecisionTool(server, t);
  registerSetDecisionScopeTool(server, t);
  registerRecordPlanTool(server, t);
  registerGetPlansTool(server, t);
}

/** Registers `record_decision`. */
function registerRecordDecisionTool(server: ToolRegistrar, t: TableToolDeps): void {
  const f = fields(t.settings);

  server.registerTool("record_decision", {
    title: "Propose a decision",
    description: contractDescription(
      "Records a decision as proposed (resolve_decision decides it); link the discussion it came from.",
    ),
    inputSchema: toolArgs({
      title: f.title,
      detail: z.string().describe(
        "What and why",
      ),
      workspace: f.workspace,
      discussion_id: f.id("discussion").optional(),
    }),
    outputSchema: {
      decision: decisionSchema,
      ...WORKSPACE_FIELDS,
      ...NOTES_FIELD,
    },
    annotations: writes({ destructive: false, idempotent: false }),
  }, async (args, call) => {
    const r = await recordDecision(t.ctx, callerOf(call, t.deps), args);
    const next = "A person resolves it (resolve_decision with their approval code).";
    return result(`Recorded as proposed: ${renderDecision(r.decision, nonce())}\n${next}`, r, {
      notes: [next],
    });
  });
}

/** Registers `get_decisions`. */
function registerGetDecisionsTool(server: ToolRegistrar, t: TableToolDeps): void {
  const f = fields(t.settings);

  server.registerTool("get_decisions", {
    title: "List decisions",
    description: contractDescription(
      "Lists a workspace's decisions, newest first, with each verdict's proof (decided_via): console (the owner), approval_code (a person) or relayed (an AI's word).",
    ),
    inputSchema: toolArgs({
      workspace: f.workspace,
      status: z.enum(DECISION_STATUSES).optional().describe("Only this status"),
      limit: f.limit,
      after_id: f.afterId,
    }),
    outputSchema: {
      ...UNTRUSTED_FIELDS,
      ...LIST_FIELDS,
      decisions: z.array(decisionSchema),
      ...NOTES_FIELD,
    },
    annotations: READ_ONLY,
  }, async (args) => {
    const r = await getDecisions(t.ctx, args);
    const n = nonce();
    return pagedResult(
      listRead(
        r,
        "decisions",
        "get_decisions",
        (shown, more) =>
          result(renderDecisions(shown, n), shown, {
            untrusted: { nonce: n, fields: textsAt("decisions[]", "decision") },
            notes: [...moreNotes(shown, "raise limit or filter by status"), ...more],
          }),
        BY_ID,
      ),
    );
  });
}

/** Registers `resolve_decision`. */
function registerResolveDecisionTool(server: ToolRegistrar, t: TableToolDeps): void {
  const f = fields(t.settings);

  server.registerTool("resolve_decision", {
    title: "Resolve a decision",
    description: contractDescription(
      "Approves or rejects a proposed decision once, with a reason: human with a person's approval_code, relayed without. Its discussion gets a note.",
    ),
    inputSchema: toolArgs({
      decision_id: f.id("decision"),
      verdict: z.enum(["approved", "rejected"]).describe("The verdict"),
      reason: z.string().describe("Why"),
      superseded_by: f.id("replacing decision").optional(),
      approval_code: APPROVAL_CODE.optional(),
    }),
    outputSchema: {
      ...UNTRUSTED_FIELDS,
      decision: decisionSchema,
      note_seq: advertisedAs(z.number().int().nullable(), {
        anyOf: [{ type: "integer" }, {
          type: "null",
          description: "no note: the decision has no discussion",
        }],
      }, "The seq of the note posted into the decision's discussion"),
    },
    annotations: writes({ destructive: false, idempotent: false }),
  }, async (args, call) => {
    const r = await resolveDecision(t.ctx, callerOf(call, t.deps), args);
    const note = r.note_seq === null
      ? ""
      : `\nA note was posted to discussion ${r.decision.discussion_id} as seq ${r.note_seq}.`;
    const n = nonce();
    return result(`Resolved: ${renderDecision(r.decision, n)}${note}`, r, {
      untrusted: { nonce: n, fields: textsAt("decision", "decision") },
    });
  });
}

/** Registers `set_decision_scope`. */
function registerSetDecisionScopeTool(server: ToolRegistrar, t: TableToolDeps): void {
  const f = fields(t.settings);

  server.registerTool("set_decision_scope", {
    title: "Set a decision's scope",
    description: contractDescription(
      "Makes an approved decision a standing rule of its workspace or limits it to its project; needs a person's approval code.",
    ),
    inputSchema: toolArgs({
      decision_id: f.id("decision"),
      scope: z.enum(DECISION_SCOPES).describe(
        "workspace: every chat there sees it first; project: only where made",
      ),
      approval_code: APPROVAL_CODE,
    }),
    outputSchema: { ...UNTRUSTED_FIELDS, decision: decisionSchema, changed: z.boolean() },
    annotations: writes({ destructive: false, idempotent: true }),
  }, async (args, call) => {
    const r = await setDecisionScope(t.ctx, callerOf(call, t.deps), args);
    // The decision's texts are its proposer's and its resolver's, not the caller's.
    return result(
      `${
        r.changed ? "Scope set" : "Scope unchanged"
      }: decision ${r.decision.id} is scoped to ${r.decision.scope}.`,
      r,
      { untrusted: { nonce: nonce(), fields: textsAt("decision", "decision") } },
    );
  });
}

/** Registers `record_plan`. */
function registerRecordPlanTool(server: ToolRegistrar, t: TableToolDeps): void {
  const f = fields(t.settings);

  server.registerTool("record_plan", {
    title: "Record a plan",
    description: contractDescription(
      "Records a plan. Plans are never edited: record a new one that supersedes it.",
    ),
    inputSchema: toolArgs({
      title: f.title,
      body: z.string().describe("The plan"),
      workspace: f.workspace,
      discussion_id: f.id("discussion").optional(),
      decision_id: f.id("decision").optional(),
      supersedes: f.id("replaced plan").optional(),
    }),
    outputSchema: { plan: planSchema, ...WORKSPACE_FIELDS },
    annotations: writes({ destructive: false, idempotent: false }),
  }, async (args, call) => {
    const r = await recordPlan(t.ctx, callerOf(call, t.deps), args);
    return result(`Recorded: ${renderPlan(r.plan, nonce())}`, r);
  });
}

/** Registers `get_plans`. */
function registerGetPlansTool(server: ToolRegistrar, t: TableToolDeps): void {
  const f = fields(t.settings);

  server.registerTool("get_plans", {
    title: "List plans",
    description: contractDescription(
      "Lists a workspace's current plans, newest first.",
    ),
    inputSchema: toolArgs({
      workspace: f.workspace,
      discussion_id: f.id("discussion").optional(),
      include_superseded: z.boolean().optional().describe("Also superseded plans"),
      limit: f.limit,
      after_id: f.afterId,
    }),
    outputSchema: {
      ...UNTRUSTED_FIELDS,
      ...LIST_FIELDS,
      plans: z.array(planSchema),
      ...NOTES_FIELD,
    },
    annotations: READ_ONLY,
  }, async (args) => {
    const r = await getPlans(t.ctx, args);
    const n = nonce();
    return pagedResult(
      listRead(r, "plans", "get_plans", (shown, more) =>
        result(renderPlans(shown, n), shown, {
          untrusted: { nonce: n, fields: textsAt("plans[]", "plan") },
          notes: [...moreNotes(shown, "raise limit"), ...more],
        }), BY_ID),
    );
  });
}
