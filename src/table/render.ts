/**
 * Text for models: short, ordered, fixed formats. Everything another client wrote (messages,
 * decisions, plans, handoff context) is shown inside the shared untrusted-data wrapper.
 */

import { wrapUntrusted } from "../kit/untrusted.ts";
import type { Participant, WorkspaceContext } from "./store_context.ts";
import type { Decision } from "./store_decisions.ts";
import type { Message } from "./store_discussions.ts";
import type { DiscussionPage } from "./store_discussion_page.ts";
import type { Handoff } from "./store_handoffs.ts";
import type { Plan } from "./store_plans.ts";
import { type Author, type Discussion, PROOF_TEXT } from "./store_schema.ts";
import type { Task } from "./store_tasks.ts";

/** `name (via kind)`, with the OAuth client id when there is one. */
export function who(a: Author): string {
  return a.client_id === undefined
    ? `${a.name} (via ${a.via})`
    : `${a.name} (via ${a.via}, client ${a.client_id})`;
}

function wsLine(workspace: string, source?: "caller" | "default"): string {
  return source === "default"
    ? `workspace "${workspace}" (the default: pass workspace to choose another)`
    : `workspace "${workspace}"`;
}

/** One message: a header line written by the server, then its body as untrusted data. */
function renderMessage(m: Message, nonce: string): string {
  const reply = m.in_reply_to === null ? "" : ` · reply to seq ${m.in_reply_to}`;
  return [
    `seq ${m.seq} · ${m.kind} · ${who(m.author)} · ${m.created_at}${reply}`,
    wrapUntrusted(m.body, nonce, `${who(m.author)}, seq ${m.seq}`),
  ].join("\n");
}

/** The result of `create_discussion`. */
export function renderCreatedDiscussion(
  r: { discussion: Discussion; message: Message | null; workspace_source: "caller" | "default" },
): string {
  const d = r.discussion;
  return [
    `Discussion ${d.id} opened in ${wsLine(d.workspace, r.workspace_source)} by ${
      who(d.created_by)
    }.`,
    `Title: ${q(d.title)}`,
    r.message
      ? `Message seq 1 (${r.message.kind}) posted.`
      : "No message yet: post one with post_message.",
    `Others reply with post_message discussion_id=${d.id}.`,
  ].join("\n");
}

/** The result of `post_message`. */
export function renderPosted(r: { message: Message; discussion: Discussion }): string {
  const m = r.message;
  return `Posted seq ${m.seq} (${m.kind}) to discussion ${r.discussion.id} ${
    q(r.discussion.title)
  } as ${who(m.author)}. Latest seq: ${r.discussion.latest_seq}.`;
}

/** The result of `get_discussion`. */
export function renderDiscussion(
  p: DiscussionPage,
  nonce: string,
  notes: readonly string[] = [],
): string {
  const d = p.discussion;
  const lines = [
    `Discussion ${d.id} ${q(d.title)} · ${wsLine(d.workspace)} · opened by ${
      who(d.created_by)
    } at ${d.created_at}`,
    `Messages: ${p.total} (latest seq ${p.latest_seq}); showing ${p.messages.length}.${
      p.unread_before === undefined ? "" : ` Unread for you before this read: ${p.unread_before}.`
    }`,
  ];
  if (p.warning) lines.push(`⚠ ${p.warning}`);
  lines.push(...notes);
  lines.push("", ...p.messages.map((m) => renderMessage(m, nonce)));
  if (p.warning) lines.push("", `⚠ ${p.warning}`);
  return lines.join("\n");
}

/** The participants list with its limitations line. */
export function renderParticipants(
  workspace: string,
  participants: Participant[],
  limitations: string,
  total = participants.length,
): string {
  const rows = participants.map((p) =>
    `- ${p.name}: ${p.messages} message(s), ${p.actions} action(s); seen via ${p.vias.join(", ")}${
      p.client_ids.length ? `; client ids ${p.client_ids.join(", ")}` : ""
    }`
  );
  return [
    `Participants of ${wsLine(workspace)}: showing ${participants.length} of ${total}${
      total > participants.length ? " (more exist: raise limit)" : ""
    }`,
    ...(rows.length ? rows : ["(nobody yet)"]),
    `Limitations: ${limitations}`,
  ].join("\n");
}

function decisionHead(d: Decision): string {
  const verdict = d.decided_by
    ? ` · ${d.status} by ${who(d.decided_by)} (${d.decided_by_kind}, proof: ${
      PROOF_TEXT[d.decided_via!]
    }) at ${d.decided_at}`
    : ` · ${d.status}`;
  return `Decision ${d.id} ${q(d.title)}${verdict} · scope ${d.scope} · proposed by ${
    who(d.proposed_by)
  }${d.superseded_by ? ` · superseded by ${d.superseded_by}` : ""}`;
}

/** The first line of a list: which workspace, how many shown of how many, how to see more. */
function listHead(
  what: string,
  r: { workspace: string; has_more: boolean; total: number },
  shown: number,
  more: string,
): string {
  return `${what} in ${wsLine(r.workspace)}: showing ${shown} of ${r.total}${
    r.has_more ? ` (more exist: ${more})` : ""
  }.`;
}

/** One decision with its detail (and reason) as untrusted data. */
export function renderDecision(d: Decision, nonce: string): string {
  const parts = [decisionHead(d), wrapUntrusted(d.detail, nonce, `${who(d.proposed_by)}, detail`)];
  if (d.reason !== null && d.decided_by) {
    parts.push("Reason:", wrapUntrusted(d.reason, nonce, `${who(d.decided_by)}, reason`));
  }
  return parts.join("\n");
}

/** A list of decisions. */
export function renderDecisions(
  r: { workspace: string; decisions: Decision[]; has_more: boolean; total: number },
  nonce: string,
): string {
  return [
    listHead("Decisions", r, r.decisions.length, "raise limit or filter by status"),
    ...r.decisions.map((d) => `\n${renderDecision(d, nonce)}`),
  ].join("\n");
}

/** One plan with its body as untrusted data. */
export function renderPlan(p: Plan, nonce: string): string {
  const links = [
    p.supersedes ? `supersedes ${p.supersedes}` : "",
    p.superseded_by ? `SUPERSEDED by ${p.superseded_by}` : "",
    p.decision_id ? `decision ${p.decision_id}` : "",
    p.discussion_id ? `discussion ${p.discussion_id}` : "",
  ].filter((s) => s !== "");
  return [
    `Plan ${p.id} ${q(p.title)} by ${who(p.created_by)} at ${p.created_at}${
      links.length ? ` · ${links.join(" · ")}` : ""
    }`,
    wrapUntrusted(p.body, nonce, `${who(p.created_by)}, plan ${p.id}`),
  ].join("\n");
}

/** A list of plans. */
export function renderPlans(
  r: { workspace: string; plans: Plan[]; has_more: boolean; total: number },
  nonce: string,
): string {
  return [
    listHead("Plans", r, r.plans.length, "raise limit"),
    ...r.plans.map((p) => `\n${renderPlan(p, nonce)}`),
  ].join("\n");
}

/** One task line, with its note when the owner never got the context. */
export function renderTask(t: Task): string {
  const owner = t.assigned_to === null ? "unassigned" : `assigned to ${t.assigned_to}`;
  const lines = [
    `Task ${t.id} ${q(t.title)} · ${t.status} · ${owner} · handoff ${t.handoff ?? "none"}${
      t.parked ? " · PARKED" : ""
    }`,
  ];
  if (t.note) lines.push(`  note: ${t.note}`);
  return lines.join("\n");
}

/** A list of tasks. */
export function renderTasks(
  r: { workspace: string; tasks: Task[]; has_more: boolean; total: number },
): string {
  return [
    listHead("Tasks", r, r.tasks.length, "raise limit or filter"),
    ...r.tasks.map(renderTask),
  ].join("\n");
}

/** One handoff with its context as untrusted data. */
export function renderHandoff(h: Handoff, nonce: string): string {
  const accepted = h.accepted_by ? ` · accepted by ${who(h.accepted_by)} at ${h.accepted_at}` : "";
  return [
    `Handoff ${h.id} · ${h.state} · task ${h.task_id}${
      h.task_title ? ` ${q(h.task_title)}` : ""
    } · to ${h.to} · from ${who(h.from)} · ${h.age_days} day(s) old${accepted}`,
    wrapUntrusted(h.context, nonce, `${who(h.from)}, handoff context`),
  ].join("\n");
}

/** A list of handoffs. */
export function renderHandoffs(
  r: { workspace: string; handoffs: Handoff[]; has_more: boolean; total: number },
  nonce: string,
): string {
  return [
    listHead("Handoffs", r, r.handoffs.length, "raise limit or filter"),
    ...r.handoffs.map((h) => `\n${renderHandoff(h, nonce)}`),
  ].join("\n");
}

/** The workspace context: who you are, what waits for you, then the rest. */
export function renderContext(c: WorkspaceContext): string {
  const o = c.open_items;
  const w = o.waiting_for_you;
  const lines = [
    `contract ${c.contract} · workspace "${c.workspace}" · you are ${c.you_are.name} (via ${c.you_are.via})`,
    "",
    `WAITING FOR YOU: ${w.total}`,
    `- handoffs to accept (accept_handoff): ${list(w.unaccepted.handoffs)}`,
    `- tasks assigned to you, not started: ${list(w.unaccepted.tasks)}`,
    `- your tasks in progress: ${list(w.in_progress.tasks)}`,
    `UNREAD FOR YOU: ${o.unread.messages} message(s) in ${o.unread.discussions} discussion(s)${
      o.unread.messages > 0 ? " (get_discussion unread_only=true reads them)" : ""
    }`,
    ...o.unread.items.map((d) => `- ${d.id} ${q(d.title)} · ${d.unread} unread`),
  ];
  if (o.unread.has_more) {
    lines.push(`- … and ${o.unread.discussions - o.unread.items.length} more (raise limit)`);
  }
  if (c.elsewhere.total > 0) {
    lines.push(
      `Elsewhere: ${c.elsewhere.total} item(s) wait for you in ${
        c.elsewhere.workspaces.map((x) => `"${x.workspace}" (${x.total})`).join(", ")
      }`,
    );
  }
  lines.push(
    "",
    `Standing rules: ${c.standing_rules.length}`,
    ...c.standing_rules.map((d) => `- ${d.id} ${q(d.title)}`),
    `Decisions awaiting a verdict: ${o.decisions_awaiting.total}`,
    ...o.decisions_awaiting.items.map((d) => `- ${d.id} ${q(d.title)} by ${who(d.proposed_by)}`),
    `Current plans: ${o.plans_current}${
      o.latest_plan ? `; latest ${o.latest_plan.id} ${q(o.latest_plan.title)}` : ""
    }`,
    `Tasks not done: ${o.tasks.open} open, ${o.tasks.in_progress} in progress, ${o.tasks.blocked} blocked`,
    `Handoffs pending: ${o.handoffs_pending.total}; inactive (stale): ${o.handoffs_inactive.total}`,
    ...o.handoffs_pending.items.map((h) =>
      `- ${h.id} · ${h.state} · task ${h.task_id} to ${h.to} · ${h.age_days} day(s)`
    ),
    `Health: ${o.health.status}${o.health.problems.map((p) => `\n- ${p}`).join("")}`,
    "",
    `Participants: ${
      c.participants.map((p) => `${p.name} (${p.vias.join("/")})`).join(", ") ||
      "none"
    }`,
    "",
    `Discussions: ${c.total_discussions}; showing the ${c.discussions.length} most recently active${
      c.has_more ? " (more exist: raise limit)" : ""
    }`,
    ...c.discussions.map((d) =>
      `- ${d.id} ${
        q(d.title)
      } · ${d.latest_seq} message(s), ${d.unread} unread · last ${d.last_message_at}`
    ),
    `Quiet for ${c.quiet_discussions.quiet_for_days}+ days: ${c.quiet_discussions.items.length}${
      c.quiet_discussions.has_more ? "+" : ""
    }`,
    ...c.quiet_discussions.items.map((d) =>
      `- ${d.id} ${q(d.title)} · ${d.unread} unread · last ${d.last_message_at}`
    ),
  );
  return lines.join("\n");
}

/** A title another client wrote, quoted so it reads as a value. */
function q(title: string | null): string {
  return JSON.stringify(title);
}

function list(ids: string[]): string {
  return ids.length === 0 ? "none" : ids.join(", ");
}
