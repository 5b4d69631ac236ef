/**
 * The console's table pages: what waits, a decision, a handoff, a discussion; each POST writes
 * through the table's own store function (the one a tool calls) as the console's caller.
 */

import { AppError } from "../kit/errors.ts";
import { statusOf } from "../http/status.ts";
import { getWorkspaceContext } from "../table/store_context.ts";
import { resolveDecision } from "../table/store_decisions.ts";
import { postMessage } from "../table/store_discussions.ts";
import { getDiscussion } from "../table/store_discussion_page.ts";
import { acceptHandoff, createHandoff } from "../table/store_handoffs.ts";
import { ownerQueue, readDecision, readHandoff, readTask } from "../table/store_queue.ts";
import type { TableCtx } from "../table/store_common.ts";
import { consoleCaller, type ConsoleCtx, frameOf, type Signed } from "./context.ts";
import { decisionPage, discussionPage, handoffPage, type Outcome, taskPage } from "./html_items.ts";
import { refusalPage } from "./html_login.ts";
import { waitingPage } from "./html_waiting.ts";
import { doneAt, doneNotice } from "./notices.ts";
import { html, seeOther } from "./web.ts";

/** The table, or a page saying it is off. */
function tableOf(ctx: ConsoleCtx): TableCtx {
  if (ctx.table === undefined) {
    throw new AppError("not_found", "The table toolset is off on this server (TOOLSETS)");
  }
  return ctx.table;
}

/** Runs a page; a store's refusal becomes a page saying why, with its status. */
export async function orProblem(work: () => Promise<Response>): Promise<Response> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return html(statusOf(error.kind), refusalPage("Cannot do that", error.message));
  }
}

/** `GET /console`. */
export async function showWaiting(ctx: ConsoleCtx, s: Signed): Promise<Response> {
  // Without the table nothing can wait for a person; apps and settings still can be managed.
  if (ctx.table === undefined) return seeOther("/console/apps");
  const table = ctx.table;
  const asked = s.r.url.searchParams.get("workspace") ?? undefined;
  const limit = table.settings.limits.pageDefault;
  const queue = await ownerQueue(table, ctx.settings.ownerName, limit);
  const c = await getWorkspaceContext(table, consoleCaller(ctx), { workspace: asked, limit });
  const workspaces = [
    ...new Set([
      table.settings.defaultWorkspace,
      c.workspace,
      ...queue.decisions.items.map((d) => d.workspace),
      ...queue.handoffs.items.map((h) => h.workspace),
      ...queue.tasks.items.map((t) => t.workspace),
    ]),
  ].sort();
  return html(
    200,
    waitingPage({
      queue,
      workspace: c.workspace,
      workspaces,
      discussions: c.discussions,
      totalDiscussions: c.total_discussions,
      done: doneNotice(s.r.url),
    }, frameOf(ctx, s)),
  );
}

/** Why a write was refused, shown on its page with the refusal's status. */
type Problem = { status: number; text: string };

function outcomeOf(s: Signed, problem?: string): Outcome {
  return { done: doneNotice(s.r.url), problem };
}

/** `GET /console/decisions/<id>`. */
export async function showDecision(
  ctx: ConsoleCtx,
  s: Signed,
  problem?: Problem,
): Promise<Response> {
  const d = await readDecision(tableOf(ctx), s.params.id);
  return html(
    problem?.status ?? 200,
    decisionPage(d, frameOf(ctx, s), outcomeOf(s, problem?.text)),
  );
}

/** `POST /console/decisions/<id>`: the verdict. */
export async function resolveHere(
  ctx: ConsoleCtx,
  s: Signed,
  form: URLSearchParams,
): Promise<Response> {
  const verdict = form.get("verdict");
  const id = s.params.id;
  return await retold(async () => {
    if (verdict !== "approve" && verdict !== "reject") {
      throw new AppError("invalid", "verdict must be approve or reject");
    }
    const superseded = form.get("superseded_by")?.trim() || undefined;
    const r = await resolveDecision(tableOf(ctx), consoleCaller(ctx), {
      decision_id: id,
      verdict: verdict === "approve" ? "approved" : "rejected",
      reason: form.get("reason") ?? "",
      ...(superseded === undefined ? {} : { superseded_by: superseded }),
    });
    return doneAt(
      `/console/decisions/${encodeURIComponent(id)}`,
      r.decision.status === "approved" ? "approved" : "rejected",
    );
  }, (problem) => showDecision(ctx, s, problem));
}

function handoffPath(id: string): string {
  return `/console/handoffs/${encodeURIComponent(id)}`;
}

/** `GET /console/handoffs/<id>`. */
export async function showHandoff(
  ctx: ConsoleCtx,
  s: Signed,
  problem?: Problem,
): Promise<Response> {
  const h = await readHandoff(tableOf(ctx), s.params.id);
  return html(problem?.status ?? 200, handoffPage(h, frameOf(ctx, s), outcomeOf(s, problem?.text)));
}

/** `POST /console/handoffs/<id>`: accept it, or hand its task on. */
export async function actOnHandoff(
  ctx: ConsoleCtx,
  s: Signed,
  form: URLSearchParams,
): Promise<Response> {
  const table = tableOf(ctx);
  return await retold(async () => {
    const action = form.get("action");
    if (action === "accept") {
      const r = await acceptHandoff(table, consoleCaller(ctx), { handoff_id: s.params.id });
      return doneAt(handoffPath(r.handoff.id), "accepted");
    }
    if (action === "hand_on") {
      return await handOn(ctx, (await readHandoff(table, s.params.id)).task_id, form);
    }
    throw new AppError("invalid", "action must be accept or hand_on");
  }, (problem) => showHandoff(ctx, s, problem));
}

/** Hands task `taskId` on (a new handoff); the path of that handoff's page. */
async function handOn(ctx: ConsoleCtx, taskId: string, form: URLSearchParams): Promise<string> {
  const r = await createHandoff(tableOf(ctx), consoleCaller(ctx), {
    task_id: taskId,
    to: form.get("to") ?? "",
    context: form.get("context") ?? "",
  });
  return doneAt(handoffPath(r.handoff.id), "handed_on");
}

/** `GET /console/tasks/<id>`. */
export async function showTask(ctx: ConsoleCtx, s: Signed, problem?: Problem): Promise<Response> {
  const task = await readTask(tableOf(ctx), s.params.id);
  return html(problem?.status ?? 200, taskPage(task, frameOf(ctx, s), outcomeOf(s, problem?.text)));
}

/** `POST /console/tasks/<id>`: hand the task on. */
export async function actOnTask(
  ctx: ConsoleCtx,
  s: Signed,
  form: URLSearchParams,
): Promise<Response> {
  return await retold(async () => {
    if (form.get("action") !== "hand_on") throw new AppError("invalid", "action must be hand_on");
    return await handOn(ctx, s.params.id, form);
  }, (problem) => showTask(ctx, s, problem));
}

/** `GET /console/discussions/<id>?after=<seq>`. */
export async function showDiscussion(
  ctx: ConsoleCtx,
  s: Signed,
  problem?: Problem,
): Promise<Response> {
  const table = tableOf(ctx);
  const raw = s.r.url.searchParams.get("after") ?? "0";
  const after = /^\d{1,9}$/.test(raw) ? Number(raw) : 0;
  const limit = table.settings.limits.pageDefault;
  const p = await getDiscussion(table, { discussion_id: s.params.id, after_seq: after, limit });
  return html(
    problem?.status ?? 200,
    discussionPage(p, after, limit, frameOf(ctx, s), outcomeOf(s, problem?.text)),
  );
}

/** `POST /console/discussions/<id>`: a message from the owner. */
export async function postHere(
  ctx: ConsoleCtx,
  s: Signed,
  form: URLSearchParams,
): Promise<Response> {
  const table = tableOf(ctx);
  return await retold(async () => {
    const r = await postMessage(table, consoleCaller(ctx), {
      discussion_id: s.params.id,
      body: form.get("body") ?? "",
    });
    const limit = table.settings.limits.pageDefault;
    const after = Math.max(0, r.message.seq - limit);
    return doneAt(
      `/console/discussions/${
        encodeURIComponent(r.discussion.id)
      }?after=${after}#seq-${r.message.seq}`,
      "posted",
    );
  }, (problem) => showDiscussion(ctx, s, problem));
}

/**
 * Runs a write and answers 303 to the page it names; a store's refusal re-renders the page
 * with the reason and the refusal's status (nothing was written: every write is one atomic).
 */
async function retold(
  write: () => Promise<string>,
  again: (problem: Problem) => Promise<Response>,
): Promise<Response> {
  try {
    return seeOther(await write());
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return await again({ status: statusOf(error.kind), text: error.message });
  }
}
