/**
 * The table's records and the one builder of each KV key. Long texts are stored as UTF-8 bytes,
 * so a body at its byte limit always fits one KV value (a string may take two bytes per unit).
 */

import type { Caller, CallerVia } from "../kit/caller.ts";

/** The kinds a message may have. */
export const MESSAGE_KINDS = ["proposal", "review", "question", "note"] as const;
/** A message's kind. */
export type MessageKind = typeof MESSAGE_KINDS[number];
/** A decision's status: proposed, then approved or rejected, once. */
export const DECISION_STATUSES = ["proposed", "approved", "rejected"] as const;
export type DecisionStatus = typeof DECISION_STATUSES[number];
/**
 * What proves who resolved a decision: the owner signed in to the console, a correct approval
 * code, or nothing (an AI relayed the verdict).
 */
export const DECISION_PROOFS = ["console", "approval_code", "relayed"] as const;
export type DecisionProof = typeof DECISION_PROOFS[number];
/** Each proof in words, the same in tool text, `/view` and the console. */
export const PROOF_TEXT: Record<DecisionProof, string> = {
  console: "a person, in the owner console",
  approval_code: "a person, with the approval code",
  relayed: "relayed by an AI, unproven",
};
/** Where an approved decision applies; workspace-scoped ones are standing rules. */
export const DECISION_SCOPES = ["project", "workspace"] as const;
export type DecisionScope = typeof DECISION_SCOPES[number];
/** A task's status. */
export const TASK_STATUSES = ["open", "in_progress", "blocked", "done"] as const;
export type TaskStatus = typeof TASK_STATUSES[number];
/** A handoff's state, computed when it is read. */
export const HANDOFF_STATES = ["waiting", "stale", "accepted", "obsolete", "superseded"] as const;
export type HandoffState = typeof HANDOFF_STATES[number];

/** Who did something, as recorded: the name and how it was established. */
export interface Author {
  name: string;
  via: CallerVia;
  client_id?: string;
}

/** The author record of `caller`. */
export function authorOf(caller: Caller): Author {
  return caller.clientId === undefined
    ? { name: caller.name, via: caller.via }
    : { name: caller.name, via: caller.via, client_id: caller.clientId };
}

/** A discussion; its `latest_seq` is the counter its messages are numbered from. */
export interface Discussion {
  id: string;
  workspace: string;
  title: string;
  created_by: Author;
  created_at: string;
  latest_seq: number;
  last_message_at: string;
}

/**
 * A discussion as lists show it, kept as the value of its activity index entry. The one index
 * that holds a copy rather than an id: every post rewrites that entry anyway (it is keyed by the
 * last message's time), in the same atomic as the discussion, so the copy is never stale, and
 * listing recent or quiet discussions is one prefix list instead of a list and a read per id.
 */
export type DiscussionSummary = Pick<
  Discussion,
  "id" | "title" | "latest_seq" | "last_message_at" | "created_by"
>;

/** The summary of `d` its activity entry holds. */
export function summaryOf(d: Discussion): DiscussionSummary {
  return {
    id: d.id,
    title: d.title,
    latest_seq: d.latest_seq,
    last_message_at: d.last_message_at,
    created_by: d.created_by,
  };
}

/** A stored message: never edited or deleted. */
export interface StoredMessage {
  discussion_id: string;
  seq: number;
  kind: MessageKind;
  body: Uint8Array;
  in_reply_to?: number;
  author: Author;
  created_at: string;
}

/** A stored decision. */
export interface StoredDecision {
  id: string;
  workspace: string;
  title: string;
  detail: Uint8Array;
  discussion_id?: string;
  status: DecisionStatus;
  scope: DecisionScope;
  proposed_by: Author;
  created_at: string;
  decided_by?: Author;
  decided_by_kind?: "human" | "relayed";
  /** Absent on decisions resolved before it was recorded: derived from the kind then. */
  decided_via?: DecisionProof;
  decided_at?: string;
  reason?: Uint8Array;
  superseded_by?: string;
  scope_set_by?: Author;
  scope_set_at?: string;
}

/** A stored plan: never edited; a changed plan is a new one that supersedes it. */
export interface StoredPlan {
  id: string;
  workspace: string;
  title: string;
  body: Uint8Array;
  discussion_id?: string;
  decision_id?: string;
  supersedes?: string;
  created_by: Author;
  created_at: string;
}

/**
 * A stored task. `handoff` points at the handoff waiting for acceptance, if any (it is pending
 * only while the task is not done); `handoff_to` is whom the last handoff brought the context to.
 */
export interface StoredTask {
  id: string;
  workspace: string;
  title: string;
  detail?: Uint8Array;
  discussion_id?: string;
  status: TaskStatus;
  assigned_to: string | null;
  handoff: string | null;
  handoff_to: string | null;
  /** The newest handoff of this task: any older one is superseded. */
  last_handoff: string | null;
  created_by: Author;
  created_at: string;
  updated_by?: Author;
  updated_at: string;
}

/** A stored handoff. Its state is never stored: it is computed from these facts when read. */
export interface StoredHandoff {
  id: string;
  workspace: string;
  task_id: string;
  to: string;
  context: Uint8Array;
  from: Author;
  created_at: string;
  accepted_by?: Author;
  accepted_at?: string;
}

/** What a participant was seen as, under one name. */
export interface Sighting {
  name: string;
  via: CallerVia;
  client_id?: string;
}

/** Names of the per-workspace counters, each kept in the same atomic as what it counts. */
export type CountName =
  | "discussions"
  | "discussions_empty"
  | "decisions_proposed"
  | "decisions_approved"
  | "decisions_rejected"
  | "plans_current"
  | "rules"
  | "tasks_open"
  | "tasks_in_progress"
  | "tasks_blocked"
  | "tasks_done"
  | "handoffs"
  | "handoffs_pending";

/** The key functions, one per key shape. Names in keys are lower case. */
export const keys = {
  discussion: (id: string): Deno.KvKey => ["discussion", id],
  wsDiscussion: (ws: string, id: string): Deno.KvKey => ["ws_discussion", ws, id],
  activity: (ws: string, at: string, id: string): Deno.KvKey => ["ws_activity", ws, at, id],
  activityIn: (ws: string): Deno.KvKey => ["ws_activity", ws],
  message: (discussionId: string, seq: number): Deno.KvKey => ["message", discussionId, seq],
  messagesOf: (discussionId: string): Deno.KvKey => ["message", discussionId],
  decision: (id: string): Deno.KvKey => ["decision", id],
  wsDecision: (ws: string, id: string): Deno.KvKey => ["ws_decision", ws, id],
  openDecision: (ws: string, id: string): Deno.KvKey => ["ws_decision_open", ws, id],
  rule: (ws: string, id: string): Deno.KvKey => ["ws_rule", ws, id],
  plan: (id: string): Deno.KvKey => ["plan", id],
  wsPlan: (ws: string, id: string): Deno.KvKey => ["ws_plan", ws, id],
  currentPlan: (ws: string, id: string): Deno.KvKey => ["ws_plan_current", ws, id],
  planSuccessor: (id: string): Deno.KvKey => ["plan_successor", id],
  task: (id: string): Deno.KvKey => ["ws_task", id],
  wsTask: (ws: string, id: string): Deno.KvKey => ["ws_task_in", ws, id],
  owner: (name: string, ws: string, taskId: string): Deno.KvKey => [
    "ws_task_owner",
    name.toLowerCase(),
    ws,
    taskId,
  ],
  ownedBy: (name: string): Deno.KvKey => ["ws_task_owner", name.toLowerCase()],
  handoff: (id: string): Deno.KvKey => ["ws_handoff", id],
  wsHandoff: (ws: string, id: string): Deno.KvKey => ["ws_handoff_in", ws, id],
  pending: (ws: string, id: string): Deno.KvKey => ["ws_handoff_pending", ws, id],
  addressee: (name: string, ws: string, id: string): Deno.KvKey => [
    "ws_handoff_to",
    name.toLowerCase(),
    ws,
    id,
  ],
  addressedTo: (name: string): Deno.KvKey => ["ws_handoff_to", name.toLowerCase()],
  wsDecisionsIn: (ws: string): Deno.KvKey => ["ws_decision", ws],
  openDecisionsIn: (ws: string): Deno.KvKey => ["ws_decision_open", ws],
  openDecisionsAll: (): Deno.KvKey => ["ws_decision_open"],
  rulesIn: (ws: string): Deno.KvKey => ["ws_rule", ws],
  wsPlansIn: (ws: string): Deno.KvKey => ["ws_plan", ws],
  currentPlansIn: (ws: string): Deno.KvKey => ["ws_plan_current", ws],
  wsTasksIn: (ws: string): Deno.KvKey => ["ws_task_in", ws],
  wsHandoffsIn: (ws: string): Deno.KvKey => ["ws_handoff_in", ws],
  pendingIn: (ws: string): Deno.KvKey => ["ws_handoff_pending", ws],
  spokeIn: (ws: string): Deno.KvKey => ["ws_participant_count", ws],
  seenIn: (ws: string): Deno.KvKey => ["ws_participant_seen", ws],
  count: (ws: string, name: CountName): Deno.KvKey => ["ws_count", ws, name],
  countsOf: (): Deno.KvKey => ["ws_count"],
  spoke: (ws: string, name: string, what: "messages" | "actions"): Deno.KvKey => [
    "ws_participant_count",
    ws,
    name.toLowerCase(),
    what,
  ],
  readPosition: (name: string, ws: string, discussionId: string): Deno.KvKey => [
    "ws_read",
    name.toLowerCase(),
    ws,
    discussionId,
  ],
  readsIn: (name: string, ws: string): Deno.KvKey => ["ws_read", name.toLowerCase(), ws],
  seen: (ws: string, s: Sighting): Deno.KvKey => [
    "ws_participant_seen",
    ws,
    s.name.toLowerCase(),
    s.via,
    s.client_id ?? "",
  ],
};

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Text as stored: UTF-8 bytes. */
export function pack(text: string): Uint8Array {
  return encoder.encode(text);
}

/** Stored bytes back to text. */
export function unpack(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}
