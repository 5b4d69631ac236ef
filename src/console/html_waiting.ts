/** The console's first page: what waits for the owner across workspaces, then discussions. */

import type { DiscussionSummary } from "../table/store_schema.ts";
import type { OwnerQueue } from "../table/store_queue.ts";
import { at, bdi, esc, type Frame, notice, page } from "./html_layout.ts";
import { author, counted, link, state } from "./html_parts.ts";

/** What the first page shows. */
export interface WaitingView {
  queue: OwnerQueue;
  workspace: string;
  /** Workspaces to switch the discussion list to. */
  workspaces: string[];
  discussions: DiscussionSummary[];
  totalDiscussions: number;
  done?: string;
}

function table(head: string[], rows: string[], none: string): string {
  if (rows.length === 0) return `<p class="meta">${none}</p>`;
  return `<table><thead><tr>${head.map((h) => `<th scope="col">${h}</th>`).join("")}</tr></thead>
<tbody>${rows.join("\n")}</tbody></table>`;
}

/** The page at `/console`. */
export function waitingPage(v: WaitingView, frame: Frame): string {
  const t = (iso: string) => at(iso, frame.zone);
  const q = v.queue;
  const decisions = table(
    ["Decision", "Workspace", "Proposed by", "Since"],
    q.decisions.items.map((d) =>
      `<tr data-id="${esc(d.id)}"><td>${link(`/console/decisions/${d.id}`, d.title)}</td><td>${
        bdi(d.workspace)
      }</td><td>${author(d.proposed_by)}</td><td>${t(d.created_at)}</td></tr>`
    ),
    "No decision awaits a verdict.",
  );
  const handoffs = table(
    ["State", "Task", "Workspace", "From", "Since"],
    q.handoffs.items.map((h) =>
      `<tr data-id="${esc(h.id)}"><td>${state(h.state)}</td><td>${
        link(`/console/handoffs/${h.id}`, h.task_title ?? h.task_id)
      }</td><td>${bdi(h.workspace)}</td><td>${author(h.from)}</td><td>${
        t(h.created_at)
      } <span class="meta">(${h.age_days} d)</span></td></tr>`
    ),
    `No handoff waits for ${bdi(frame.ownerName)}.`,
  );
  const tasks = table(
    ["Task", "Workspace", "Status", "Updated"],
    q.tasks.items.map((task) =>
      `<tr data-id="${esc(task.id)}"><td>${link(`/console/tasks/${task.id}`, task.title)}</td><td>${
        bdi(task.workspace)
      }</td><td>${esc(task.status)}</td><td>${t(task.updated_at)}</td></tr>`
    ),
    "No open task is yours.",
  );
  const switcher = v.workspaces.map((w) =>
    w === v.workspace
      ? `<strong aria-current="true">${bdi(w)}</strong>`
      : link(`/console?workspace=${encodeURIComponent(w)}`, w)
  ).join(" · ");
  const discussions = table(
    ["Discussion", "Messages", "Last activity", "Opened by"],
    v.discussions.map((d) =>
      `<tr data-id="${esc(d.id)}"><td>${
        link(`/console/discussions/${d.id}`, d.title)
      }</td><td>${d.latest_seq}</td><td>${t(d.last_message_at)}</td><td>${
        author(d.created_by)
      }</td></tr>`
    ),
    "No discussions yet.",
  );
  const body = `<h1>Waiting for ${bdi(frame.ownerName)}</h1>
${notice("done", v.done)}
<section aria-labelledby="h-decisions"><h2 id="h-decisions">${
    counted("Decisions awaiting a verdict", q.decisions.items.length, q.decisions.total)
  }</h2>${decisions}</section>
<section aria-labelledby="h-handoffs"><h2 id="h-handoffs">${
    counted("Handoffs to you, stale first", q.handoffs.items.length, q.handoffs.total)
  }</h2>${handoffs}</section>
<section aria-labelledby="h-tasks"><h2 id="h-tasks">${
    counted("Your open tasks", q.tasks.items.length, q.tasks.total)
  }</h2>${tasks}</section>
<section aria-labelledby="h-discussions"><h2 id="h-discussions">${
    counted(`Discussions in ${bdi(v.workspace)}`, v.discussions.length, v.totalDiscussions)
  }, latest activity first</h2>
<p class="meta">Workspaces: ${switcher}</p>${discussions}</section>`;
  return page("Waiting for you", { ...frame, current: "waiting" }, body);
}
