/**
 * Decisions: always created `proposed`; resolved once, with the evidence of who decided kept
 * apart from the name (`human` only with a correct approval code, or from the owner console).
 */

import { indexRecord } from "../kit/search_source.ts";
import { decisionDoc } from "./search.ts";
import { atomic, commitWithRetry, type Tell } from "../kit/commit.ts";
import type { Caller } from "../kit/caller.ts";
import { secretMatches } from "../kit/secret.ts";
import { AppError } from "../kit/errors.ts";
import { readKey } from "../kit/reads.ts";
import { nowIso } from "../kit/time.ts";
import {
  bump,
  checkBody,
  checkLimit,
  checkTitle,
  checkUlid,
  chooseWorkspace,
  newRecord,
  noteParticipant,
  pageIndexed,
  readIndexed,
  requireRecord,
  type TableCtx,
  type WorkspaceChoice,
} from "./store_common.ts";
import { checkSuccessor } from "./store_decision_chain.ts";
import { appendMessage, checkDiscussionIn, requireDiscussion } from "./store_discussions.ts";
import {
  type Author,
  type DecisionProof,
  type DecisionScope,
  type DecisionStatus,
  type Discussion,
  keys,
  pack,
  type StoredDecision,
  unpack,
} from "./store_schema.ts";

/** A decision as tools and pages show it; absent facts are `null`, never omitted. */
export interface Decision {
  id: string;
  workspace: string;
  title: string;
  detail: string;
  discussion_id: string | null;
  status: DecisionStatus;
  scope: DecisionScope;
  proposed_by: Author;
  created_at: string;
  decided_by: Author | null;
  decided_by_kind: "human" | "relayed" | null;
  decided_via: DecisionProof | null;
  decided_at: string | null;
  reason: string | null;
  superseded_by: string | null;
}

/** The readable form of a stored decision. */
function decisionOut(d: StoredDecision): Decision {
  return {
    id: d.id,
    workspace: d.workspace,
    title: d.title,
    detail: unpack(d.detail),
    discussion_id: d.discussion_id ?? null,
    status: d.status,
    scope: d.scope,
    proposed_by: d.proposed_by,
    created_at: d.created_at,
    decided_by: d.decided_by ?? null,
    decided_by_kind: d.decided_by_kind ?? null,
    decided_via: proofOf(d),
    decided_at: d.decided_at ?? null,
    reason: d.reason === undefined ? null : unpack(d.reason),
    superseded_by: d.superseded_by ?? null,
  };
}

/** The readable forms of stored decisions, in order. */
export function decisionsOut(stored: StoredDecision[]): Decision[] {
  return stored.map(decisionOut);
}

/** The proof a resolved decision has; older records hold only the kind, which implies it. */
function proofOf(d: StoredDecision): DecisionProof | null {
  if (d.decided_by_kind === undefined) return null;
  return d.decided_via ?? (d.decided_by_kind === "human" ? "approval_code" : "relayed");
}

/** Records a decision; it is always `proposed`, whatever the caller wishes. */
export async function recordDecision(
  ctx: TableCtx,
  caller: Caller,
  input: { title: string; detail: string; workspace?: string; discussion_id?: string },
): Promise<WorkspaceChoice & { decision: Decision }> {
  const choice = chooseWorkspace(ctx, input.workspace);
  const ws = choice.workspace;
  const title = checkTitle(ctx, "title", input.title);
  const detail = checkBody(ctx, "detail", input.detail, "messageMaxBytes");
  await checkDiscussionIn(ctx, input.discussion_id, ws);
  return await commitWithRetry(() => {
    const { id, op, author } = newRecord(ctx, ws, caller, keys.decision);
    const decision: StoredDecision = {
      id,
      workspace: ws,
      title,
      detail: pack(detail),
      ...(input.discussion_id === undefined ? {} : { discussion_id: input.discussion_id }),
      status: "proposed",
      scope: "project",
      proposed_by: author,
      created_at: nowIso(ctx.settings.now()),
    };
    op.set(keys.decision(id), decision)
      .set(keys.wsDecision(ws, id), id)
      .set(keys.openDecision(ws, id), id);
    indexRecord(op, decisionDoc(decision));
    bump(op, ws, "decisions_proposed", 1);
    return Promise.resolve({ op, value: { ...choice, decision: decisionOut(decision) } });
  });
}

/**
 * The proof behind a verdict. A `console` caller is the owner signed in to the server's console
 * with the owner secret: only the console's own routes make such a caller (no connection can
 * claim `via: console`), so that sign-in is the proof and no code is asked.
 */
function verdictProof(
  ctx: TableCtx,
  caller: Caller,
  code: string | undefined,
): DecisionProof {
  if (caller.via === "console") {
    if (code !== undefined) {
      throw new AppError(
        "invalid",
        "approval_code is not taken from the console: the owner's sign-in is the proof",
      );
    }
    return "console";
  }
  return approvalProof(ctx, code);
}

/**
 * What an approval code proves: a person (`approval_code`) when it matches `APPROVAL_SECRET`
 * (compared in constant time), `relayed` when none was sent. A wrong code, or any code when no
 * secret is set, is an error: never a silent downgrade to `relayed`.
 */
function approvalProof(ctx: TableCtx, code: string | undefined): "approval_code" | "relayed" {
  if (code === undefined) return "relayed";
  const secret = ctx.settings.approvalSecret;
  if (secret === undefined) {
    throw new AppError(
      "invalid",
      "approval_code was sent but this server has no APPROVAL_SECRET, so no code can be checked; omit approval_code to record the verdict as relayed",
      "approval_unavailable",
    );
  }
  if (!secretMatches(code, secret)) {
    throw new AppError(
      "invalid",
      "approval_code does not match: ask the person for the current code; nothing was changed",
      "approval_code_wrong",
    );
  }
  return "approval_code";
}

/** What `resolve_decision` takes. */
export interface Resolution {
  decision_id: string;
  verdict: "approved" | "rejected";
  reason: string;
  superseded_by?: string;
  approval_code?: string;
}

/**
 * Resolves a proposed decision, once. In the same atomic, posts a `note` into its discussion
 * (if any) saying who resolved it, how, and why. A second attempt fails naming the first.
 */
export async function resolveDecision(
  ctx: TableCtx,
  caller: Caller,
  input: Resolution,
): Promise<{ decision: Decision; note_seq: number | null }> {
  const id = checkUlid("decision_id", input.decision_id);
  const reason = checkBody(ctx, "reason", input.reason, "reasonMaxBytes");
  if (input.superseded_by !== undefined) checkUlid("superseded_by", input.superseded_by);
  if (input.superseded_by === id) {
    throw new AppError("invalid", `superseded_by must name another decision, not ${id} itself`);
  }
  const proof = verdictProof(ctx, caller, input.approval_code);
  return await commitWithRetry(async () => {
    const entry = await readKey<StoredDecision>(ctx.kv, keys.decision(id));
    const current = requireDecision(entry, id);
    if (current.status !== "proposed") throw alreadyResolved(current);
    const ws = current.workspace;
    const op = atomic(ctx.kv).check(entry);
    if (input.superseded_by !== undefined) {
      await checkSuccessor(ctx, op, id, input.superseded_by, ws);
    }
    const author = noteParticipant(op, ws, caller, "actions");
    const at = nowIso(ctx.settings.now());
    const resolved: StoredDecision = {
      ...current,
      status: input.verdict,
      decided_by: author,
      decided_by_kind: proof === "relayed" ? "relayed" : "human",
      decided_via: proof,
      decided_at: at,
      reason: pack(reason),
      ...(input.superseded_by === undefined ? {} : { superseded_by: input.superseded_by }),
    };
    op.set(keys.decision(id), resolved).delete(keys.openDecision(ws, id));
    indexRecord(op, decisionDoc(resolved), true);
    bump(op, ws, "decisions_proposed", -1);
    bump(op, ws, input.verdict === "approved" ? "decisions_approved" : "decisions_rejected", 1);
    let noteSeq: number | null = null;
    let tell: Tell | undefined;
    if (current.discussion_id !== undefined) {
      const did = current.discussion_id;
      const dEntry = await readKey<Discussion>(ctx.kv, keys.discussion(did));
      const discussion = requireDiscussion(dEntry, did);
      op.check(dEntry);
      const note = await appendMessage(ctx, op, discussion, caller, {
        kind: "note",
        body: resolutionNote(resolved, reason),
      });
      noteSeq = note.message.seq;
      tell = note.tell;
    }
    return {
      op,
      value: { decision: decisionOut(resolved), note_seq: noteSeq },
      tell,
    };
  });
}

/** How each proof reads in the note posted to the decision's discussion. */
const PROOF_NOTE: Record<DecisionProof, string> = {
  console: "in the owner console, signed in with the owner secret: a person decided this",
  approval_code: "with a correct approval code: a person approved this",
  relayed: "without an approval code: relayed by this client, not proven to come from a person",
};

function resolutionNote(d: StoredDecision, reason: string): string {
  const how = PROOF_NOTE[d.decided_via!];
  const lines = [
    `Decision ${d.id} "${d.title}" was ${d.status} by ${d.decided_by!.name} (via ${
      d.decided_by!.via
    }) ${how}.`,
    `Reason: ${reason}`,
  ];
  if (d.superseded_by) lines.push(`Superseded by decision ${d.superseded_by}.`);
  return lines.join("\n");
}

function alreadyResolved(d: StoredDecision): AppError {
  return new AppError(
    "conflict",
    `Decision ${d.id} was already ${d.status} by ${d.decided_by?.name} (via ${d.decided_by?.via}, ${d.decided_by_kind}, proof ${
      proofOf(d)
    }) at ${d.decided_at}; a decision is resolved once: record a new decision to change it`,
    "already_resolved",
  );
}

function requireDecision(entry: Deno.KvEntryMaybe<StoredDecision>, id: string): StoredDecision {
  return requireRecord(entry, "decision", id, "get_decisions");
}

/**
 * Sets where an approved decision applies; only with a valid approval code. Workspace-scoped
 * decisions are the workspace's standing rules.
 */
export async function setDecisionScope(
  ctx: TableCtx,
  caller: Caller,
  input: { decision_id: string; scope: DecisionScope; approval_code: string },
): Promise<{ decision: Decision; changed: boolean }> {
  const id = checkUlid("decision_id", input.decision_id);
  approvalProof(ctx, input.approval_code);
  return await commitWithRetry<{ decision: Decision; changed: boolean }>(async () => {
    const entry = await readKey<StoredDecision>(ctx.kv, keys.decision(id));
    const current = requireDecision(entry, id);
    if (current.status !== "approved") {
      throw new AppError(
        "conflict",
        `Decision ${id} is ${current.status}: only an approved decision can be given a scope`,
      );
    }
    if (current.scope === input.scope) {
      return { value: { decision: decisionOut(current), changed: false } };
    }
    const ws = current.workspace;
    const op = atomic(ctx.kv).check(entry);
    const author = noteParticipant(op, ws, caller, "actions");
    const updated: StoredDecision = {
      ...current,
      scope: input.scope,
      scope_set_by: author,
      scope_set_at: nowIso(ctx.settings.now()),
    };
    op.set(keys.decision(id), updated);
    if (input.scope === "workspace") op.set(keys.rule(ws, id), id);
    else op.delete(keys.rule(ws, id));
    bump(op, ws, "rules", input.scope === "workspace" ? 1 : -1);
    return { op, value: { decision: decisionOut(updated), changed: true } };
  });
}

/** Decisions of a workspace, newest first, optionally of one status. */
export async function getDecisions(
  ctx: TableCtx,
  input: { workspace?: string; status?: DecisionStatus; limit?: number; after_id?: string },
): Promise<WorkspaceChoice & { decisions: Decision[]; has_more: boolean; total: number }> {
  const choice = chooseWorkspace(ctx, input.workspace);
  const limit = checkLimit(ctx, input.limit);
  const keep = input.status === undefined
    ? undefined
    : (d: StoredDecision) => d.status === input.status;
  const { page, ...counts } = await pageIndexed<StoredDecision>(
    ctx,
    keys.wsDecisionsIn(choice.workspace),
    keys.decision,
    limit,
    keep,
    input.after_id,
  );
  return { ...choice, decisions: page.map(decisionOut), ...counts };
}

/** The workspace's standing rules: approved, workspace-scoped decisions, newest first. */
export async function standingRules(ctx: TableCtx, ws: string, limit: number): Promise<Decision[]> {
  return (await readIndexed<StoredDecision>(ctx, keys.rulesIn(ws), keys.decision, limit))
    .map(decisionOut);
}

/** The newest decisions awaiting a verdict in a workspace. */
export async function awaitingDecisions(
  ctx: TableCtx,
  ws: string,
  limit: number,
): Promise<Decision[]> {
  return (await readIndexed<StoredDecision>(ctx, keys.openDecisionsIn(ws), keys.decision, limit))
    .map(decisionOut);
}
