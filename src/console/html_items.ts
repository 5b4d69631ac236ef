/** A decision, a handoff and a discussion, each with the forms that act on it. */

import type { Decision } from "../table/store_decisions.ts";
import type { DiscussionPage } from "../table/store_discussion_page.ts";
import type { Handoff } from "../table/store_handoffs.ts";
import type { Task } from "../table/store_tasks.ts";
import { at, bdi, bdiText, csrfField, esc, type Frame, notice, page } from "./html_layout.ts";
import { author, link, proof, state } from "./html_parts.ts";

/** What an item page shows besides its record: the outcome of the last action. */
export interface Outcome {
  done?: string;
  problem?: string;
}

/** `/console/decisions/<id>`: the decision, and the verdict form while it is proposed. */
export function decisionPage(d: Decision, frame: Frame, o: Outcome = {}): string {
  const t = (iso: string) => at(iso, frame.zone);
  const verdict = d.decided_by === null
    ? `<section aria-labelledby="h-verdict"><h2 id="h-verdict">Your verdict</h2>
<form method="post" action="/console/decisions/${esc(d.id)}">
${csrfField(frame.csrf)}
<fieldset><legend>Verdict</legend>
<label class="inline"><input type="radio" name="verdict" value="approve" required> Approve</label>
<label class="inline"><input type="radio" name="verdict" value="reject"> Reject</label>
</fieldset>
<label for="reason">Reason</label>
<textarea id="reason" name="reason" required></textarea>
<label for="superseded_by">Superseded by (another decision's id, optional)</label>
<input type="text" id="superseded_by" name="superseded_by" autocomplete="off">
<button class="primary" type="submit">Record verdict as ${bdi(frame.ownerName)}</button>
</form>
<p class="meta">Recorded as decided by a person, in the owner console (${
      bdi(frame.ownerName)
    }, via console). A decision is resolved once.</p></section>`
    : `<section aria-labelledby="h-verdict"><h2 id="h-verdict">Verdict</h2><dl>
<dt>Status</dt><dd>${esc(d.status)}</dd>
<dt>Decided by</dt><dd>${author(d.decided_by)} at ${t(d.decided_at!)}</dd>
<dt>Proof</dt><dd>${proof(d.decided_via)}</dd>
<dt>Reason</dt><dd><pre>${esc(d.reason ?? "")}</pre></dd>
${
      d.superseded_by
        ? `<dt>Superseded by</dt><dd>${
          link(`/console/decisions/${d.superseded_by}`, d.superseded_by)
        }</dd>`
        : ""
    }
</dl></section>`;
  const body = `<h1>Decision: ${bdi(d.title)}</h1>
${notice("done", o.done)}${notice("problem", o.problem)}
<section aria-labelledby="h-detail" data-id="${esc(d.id)}"><h2 id="h-detail">Proposal</h2><dl>
<dt>Workspace</dt><dd>${bdi(d.workspace)}</dd>
<dt>Status</dt><dd>${esc(d.status)}</dd>
<dt>Proposed by</dt><dd>${author(d.proposed_by)} at ${t(d.created_at)}</dd>
${
    d.discussion_id
      ? `<dt>Discussion</dt><dd>${link(`/console/discussions/${d.discussion_id}`, "read it")}</dd>`
      : ""
  }
<dt>Id</dt><dd><code>${esc(d.id)}</code></dd></dl>
<h3 class="meta">Detail, as written by ${bdi(d.proposed_by.name)}</h3><pre>${
    esc(d.detail)
  }</pre></section>
${verdict}`;
  return page(`Decision: ${bdiText(d.title)}`, frame, body);
}

/** The form that hands a task on: posted to `action` with `action=hand_on`, `to` and `context`. */
function handOnForm(action: string, csrf: string): string {
  return `<section aria-labelledby="h-on"><h2 id="h-on">Hand the task on</h2>
<form method="post" action="${esc(action)}">${csrfField(csrf)}
<input type="hidden" name="action" value="hand_on">
<label for="to">To (a name or team)</label><input type="text" id="to" name="to" required autocomplete="off">
<label for="context">Context for them</label><textarea id="context" name="context" required></textarea>
<button class="primary" type="submit">Hand the task on</button></form></section>`;
}

/** `/console/tasks/<id>`: a task of the owner's, and handing it on. */
export function taskPage(task: Task, frame: Frame, o: Outcome = {}): string {
  const t = (iso: string) => at(iso, frame.zone);
  const body = `<h1>Task: ${bdi(task.title)}</h1>
${notice("done", o.done)}${notice("problem", o.problem)}
<section aria-labelledby="h-task" data-id="${esc(task.id)}"><h2 id="h-task">Task</h2><dl>
<dt>Status</dt><dd>${esc(task.status)}</dd>
<dt>Workspace</dt><dd>${bdi(task.workspace)}</dd>
<dt>Assigned to</dt><dd>${task.assigned_to === null ? "nobody" : bdi(task.assigned_to)}</dd>
<dt>Created by</dt><dd>${author(task.created_by)} at ${t(task.created_at)}</dd>
${
    task.handoff
      ? `<dt>Waiting handoff</dt><dd>${link(`/console/handoffs/${task.handoff}`, "open it")}</dd>`
      : ""
  }
<dt>Id</dt><dd><code>${esc(task.id)}</code></dd></dl>
${
    task.detail === null
      ? ""
      : `<h3 class="meta">Detail</h3><pre>${esc(task.detail)}</pre>`
  }</section>
${task.status === "done" ? "" : handOnForm(`/console/tasks/${task.id}`, frame.csrf)}`;
  return page(`Task: ${bdiText(task.title)}`, frame, body);
}

/** `/console/handoffs/<id>`: the handoff, accept while it waits, and handing the task on. */
export function handoffPage(h: Handoff, frame: Frame, o: Outcome = {}): string {
  const t = (iso: string) => at(iso, frame.zone);
  const open = h.state === "waiting" || h.state === "stale";
  const action = (name: string, label: string) =>
    `<form method="post" action="/console/handoffs/${esc(h.id)}">${
      csrfField(frame.csrf)
    }<input type="hidden" name="action" value="${name}"><button class="primary" type="submit">${label}</button></form>`;
  const accept = open
    ? `<section aria-labelledby="h-accept"><h2 id="h-accept">Accept</h2>
<p>Accepting makes the task yours (${bdi(frame.ownerName)}) and in progress.</p>${
      action("accept", "Accept this handoff")
    }</section>`
    : "";
  const handOn = h.state === "obsolete" ? "" : handOnForm(`/console/handoffs/${h.id}`, frame.csrf);
  const body = `<h1>Handoff: ${bdi(h.task_title ?? h.task_id)}</h1>
${notice("done", o.done)}${notice("problem", o.problem)}
<section aria-labelledby="h-handoff" data-id="${esc(h.id)}"><h2 id="h-handoff">Handoff</h2><dl>
<dt>State</dt><dd>${state(h.state)}</dd>
<dt>Workspace</dt><dd>${bdi(h.workspace)}</dd>
<dt>To</dt><dd>${bdi(h.to)}</dd>
<dt>From</dt><dd>${author(h.from)} at ${t(h.created_at)} (${h.age_days} days ago)</dd>
${
    h.accepted_by
      ? `<dt>Accepted by</dt><dd>${author(h.accepted_by)} at ${t(h.accepted_at!)}</dd>`
      : ""
  }
<dt>Task</dt><dd><code>${esc(h.task_id)}</code></dd></dl>
<h3 class="meta">Context, as written by ${bdi(h.from.name)}</h3><pre>${
    esc(h.context)
  }</pre></section>
${accept}${handOn}`;
  return page(`Handoff: ${bdiText(h.task_title ?? h.task_id)}`, frame, body);
}

/** `/console/discussions/<id>`: one page of messages, links to the others, and the post form. */
export function discussionPage(
  p: DiscussionPage,
  after: number,
  limit: number,
  frame: Frame,
  o: Outcome = {},
): string {
  const d = p.discussion;
  const t = (iso: string) => at(iso, frame.zone);
  const self = `/console/discussions/${encodeURIComponent(d.id)}`;
  const rows = p.messages.map((m) =>
    `<article class="msg" id="seq-${m.seq}" data-id="${m.seq}"><p class="meta">#${m.seq} · <strong>${
      esc(m.kind)
    }</strong> · ${author(m.author)} · ${t(m.created_at)}${
      m.in_reply_to === null ? "" : ` · reply to #${m.in_reply_to}`
    }</p><pre>${esc(m.body)}</pre></article>`
  ).join("\n");
  const last = p.messages.at(-1)?.seq ?? after;
  const nav = [
    after > 0 ? link(`${self}?after=${Math.max(0, after - limit)}`, "← Earlier messages") : "",
    p.has_more ? link(`${self}?after=${last}`, "Later messages →") : "",
  ].filter((x) => x !== "").join(" · ");
  const body = `<h1>${bdi(d.title)}</h1>
${notice("done", o.done)}${notice("problem", o.problem)}
<p class="meta">Workspace ${bdi(d.workspace)} · opened by ${author(d.created_by)} at ${
    t(d.created_at)
  } · ${d.latest_seq} message(s) · <code>${esc(d.id)}</code></p>
<section aria-labelledby="h-messages"><h2 id="h-messages">Messages ${
    p.messages.length ? `${p.messages[0].seq}–${last}` : ""
  } of ${p.total}</h2>${rows || `<p class="meta">No messages here.</p>`}
${nav ? `<nav aria-label="Pages" class="meta">${nav}</nav>` : ""}</section>
<section aria-labelledby="h-post"><h2 id="h-post">Post a message</h2>
<form method="post" action="${esc(self)}">${csrfField(frame.csrf)}
<label for="body">Message</label><textarea id="body" name="body" required></textarea>
<button class="primary" type="submit">Post as ${bdi(frame.ownerName)}</button></form></section>`;
  return page(bdiText(d.title), frame, body);
}
