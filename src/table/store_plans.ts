/** Plans: never edited; a changed plan is a new one that supersedes the old, once. */

import { indexRecord } from "../kit/search_source.ts";
import { planDoc } from "./search.ts";
import type { Caller } from "../kit/caller.ts";
import { commitWithRetry } from "../kit/commit.ts";
import { AppError } from "../kit/errors.ts";
import { getAll, readKey, readKeys } from "../kit/reads.ts";
import { nowIso } from "../kit/time.ts";
import {
  bump,
  checkBody,
  checkLimit,
  checkTitle,
  checkUlid,
  chooseWorkspace,
  newRecord,
  pageIndexed,
  readIndexed,
  requireRecord,
  sameWorkspace,
  type TableCtx,
  type WorkspaceChoice,
} from "./store_common.ts";
import { checkDiscussionIn } from "./store_discussions.ts";
import {
  type Author,
  keys,
  pack,
  type StoredDecision,
  type StoredPlan,
  unpack,
} from "./store_schema.ts";

/** A plan as tools and pages show it. */
export interface Plan {
  id: string;
  workspace: string;
  title: string;
  body: string;
  discussion_id: string | null;
  decision_id: string | null;
  supersedes: string | null;
  superseded_by: string | null;
  created_by: Author;
  created_at: string;
}

function planOut(p: StoredPlan, supersededBy: string | null): Plan {
  return {
    id: p.id,
    workspace: p.workspace,
    title: p.title,
    body: unpack(p.body),
    discussion_id: p.discussion_id ?? null,
    decision_id: p.decision_id ?? null,
    supersedes: p.supersedes ?? null,
    superseded_by: supersededBy,
    created_by: p.created_by,
    created_at: p.created_at,
  };
}

/** What `record_plan` takes. */
export interface NewPlan {
  title: string;
  body: string;
  workspace?: string;
  discussion_id?: string;
  decision_id?: string;
  supersedes?: string;
}

/** Records a plan; with `supersedes`, the old plan stops being current in the same atomic. */
export async function recordPlan(
  ctx: TableCtx,
  caller: Caller,
  input: NewPlan,
): Promise<WorkspaceChoice & { plan: Plan }> {
  const choice = chooseWorkspace(ctx, input.workspace);
  const ws = choice.workspace;
  const title = checkTitle(ctx, "title", input.title);
  const body = checkBody(ctx, "body", input.body, "bodyMaxBytes");
  await checkDiscussionIn(ctx, input.discussion_id, ws);
  if (input.decision_id !== undefined) {
    const id = checkUlid("decision_id", input.decision_id);
    const entry = await readKey<StoredDecision>(ctx.kv, keys.decision(id));
    const decision = requireRecord(entry, "decision", id, "get_decisions");
    sameWorkspace("decision", id, decision.workspace, ws);
  }
  const old = input.supersedes === undefined
    ? undefined
    : checkUlid("supersedes", input.supersedes);
  return await commitWithRetry(async () => {
    const { id, op, author } = newRecord(ctx, ws, caller, keys.plan);
    if (old !== undefined) {
      const [oldPlan, successor] = await readKeys<[StoredPlan, string]>(ctx.kv, [
        keys.plan(old),
        keys.planSuccessor(old),
      ]);
      sameWorkspace("plan", old, requireRecord(oldPlan, "plan", old, "get_plans").workspace, ws);
      if (successor.value !== null) {
        throw new AppError(
          "conflict",
          `Plan ${old} is already superseded by plan ${successor.value}: supersede that one instead`,
          "already_superseded",
        );
      }
      op.check(successor).set(keys.planSuccessor(old), id).delete(keys.currentPlan(ws, old));
      bump(op, ws, "plans_current", -1);
    }
    const plan: StoredPlan = {
      id,
      workspace: ws,
      title,
      body: pack(body),
      ...(input.discussion_id === undefined ? {} : { discussion_id: input.discussion_id }),
      ...(input.decision_id === undefined ? {} : { decision_id: input.decision_id }),
      ...(old === undefined ? {} : { supersedes: old }),
      created_by: author,
      created_at: nowIso(ctx.settings.now()),
    };
    op.set(keys.plan(id), plan).set(keys.wsPlan(ws, id), id).set(keys.currentPlan(ws, id), id);
    indexRecord(op, planDoc(plan));
    bump(op, ws, "plans_current", 1);
    return { op, value: { ...choice, plan: planOut(plan, null) } };
  });
}

/** Plans of a workspace, newest first; superseded ones only when asked for. */
export async function getPlans(
  ctx: TableCtx,
  input: {
    workspace?: string;
    discussion_id?: string;
    include_superseded?: boolean;
    limit?: number;
    after_id?: string;
  },
): Promise<WorkspaceChoice & { plans: Plan[]; has_more: boolean; total: number }> {
  const choice = chooseWorkspace(ctx, input.workspace);
  const limit = checkLimit(ctx, input.limit);
  if (input.discussion_id !== undefined) checkUlid("discussion_id", input.discussion_id);
  const prefix = input.include_superseded
    ? keys.wsPlansIn(choice.workspace)
    : keys.currentPlansIn(choice.workspace);
  const keep = input.discussion_id === undefined
    ? undefined
    : (p: StoredPlan) => p.discussion_id === input.discussion_id;
  const { page, ...counts } = await pageIndexed<StoredPlan>(
    ctx,
    prefix,
    keys.plan,
    limit,
    keep,
    input.after_id,
  );
  const successors = await getAll<string>(ctx.kv, page.map((p) => keys.planSuccessor(p.id)));
  return {
    ...choice,
    plans: page.map((p, i) => planOut(p, successors[i].value)),
    ...counts,
  };
}

/** The newest current plan of a workspace, or `null`. */
export async function latestPlan(ctx: TableCtx, ws: string): Promise<Plan | null> {
  const [plan] = await readIndexed<StoredPlan>(ctx, keys.currentPlansIn(ws), keys.plan, 1);
  return plan === undefined ? null : planOut(plan, null);
}
