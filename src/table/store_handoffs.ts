/**
 * Handoffs: a task handed to someone with its context, accepted by the caller. A handoff's
 * state is computed when read, never stored; there is deliberately no way to cancel one.
 */

import { indexRecord } from "../kit/search_source.ts";
import { contextDoc } from "./search.ts";
import { atomic, commitWithRetry } from "../kit/commit.ts";
import { type Caller, provenOwner, sameName } from "../kit/caller.ts";
import { AppError } from "../kit/errors.ts";
import { readKey } from "../kit/reads.ts";
import { nowIso } from "../kit/time.ts";
import {
  bump,
  checkBody,
  checkLimit,
  checkName,
  checkUlid,
  chooseWorkspace,
  newRecord,
  noteParticipant,
  pageIndexed,
  readIndexed,
  readRecords,
  requireRecord,
  type TableCtx,
  type WorkspaceChoice,
} from "./store_common.ts";
import { MS_PER_DAY, staleMs } from "./settings.ts";
import {
  type Author,
  type HandoffState,
  keys,
  pack,
  type StoredHandoff,
  type StoredTask,
  unpack,
} from "./store_schema.ts";
import { readTasks, requireTask, type Task, taskOut, writeTask } from "./store_tasks.ts";

/** A handoff as tools and pages show it, with its computed state. */
export interface Handoff {
  id: string;
  workspace: string;
  task_id: string;
  task_title: string | null;
  to: string;
  context: string;
  from: Author;
  created_at: string;
  accepted_by: Author | null;
  accepted_at: string | null;
  state: HandoffState;
  /** Days since it was created, one decimal. */
  age_days: number;
}

/**
 * The state of `h` now: accepted; obsolete (its task is done); superseded (a newer handoff
 * exists for the task); stale (waiting longer than `TABLE_STALE_DAYS`); else waiting.
 */
function handoffState(
  ctx: TableCtx,
  h: StoredHandoff,
  task: StoredTask | null,
): HandoffState {
  if (h.accepted_at !== undefined) return "accepted";
  if (task === null || task.status === "done") return "obsolete";
  if (task.last_handoff !== h.id) return "superseded";
  if (ctx.settings.now() - Date.parse(h.created_at) > staleMs(ctx.settings)) return "stale";
  return "waiting";
}

function handoffOut(ctx: TableCtx, h: StoredHandoff, task: StoredTask | null): Handoff {
  const age = (ctx.settings.now() - Date.parse(h.created_at)) / MS_PER_DAY;
  return {
    id: h.id,
    workspace: h.workspace,
    task_id: h.task_id,
    task_title: task?.title ?? null,
    to: h.to,
    context: unpack(h.context),
    from: h.from,
    created_at: h.created_at,
    accepted_by: h.accepted_by ?? null,
    accepted_at: h.accepted_at ?? null,
    state: handoffState(ctx, h, task),
    age_days: Math.max(0, Math.round(age * 10) / 10),
  };
}

/**
 * Hands a task to `to` with its context, and reassigns the task to `to` in the same atomic.
 * An earlier handoff of the task that was not accepted is superseded by this one.
 */
export async function createHandoff(
  ctx: TableCtx,
  caller: Caller,
  input: { task_id: string; to: string; context: string },
): Promise<{ handoff: Handoff; task: Task; superseded: string | null }> {
  const taskId = checkUlid("task_id", input.task_id);
  const to = checkName(ctx, "to", input.to);
  const context = checkBody(ctx, "context", input.context, "bodyMaxBytes");
  return await commitWithRetry(async () => {
    const entry = await readKey<StoredTask>(ctx.kv, keys.task(taskId));
    const before = requireTask(entry, taskId);
    if (before.status === "done") {
      throw new AppError(
        "conflict",
        `Task ${taskId} is done: a finished task cannot be handed off; create a new task`,
      );
    }
    const ws = before.workspace;
    const { id, op, author } = newRecord(
      ctx,
      ws,
      caller,
      keys.handoff,
      atomic(ctx.kv).check(entry),
    );
    const at = nowIso(ctx.settings.now());
    const handoff: StoredHandoff = {
      id,
      workspace: ws,
      task_id: taskId,
      to,
      context: pack(context),
      from: author,
      created_at: at,
    };
    const after: StoredTask = {
      ...before,
      assigned_to: to,
      handoff: id,
      handoff_to: to,
      last_handoff: id,
      updated_by: author,
      updated_at: at,
    };
    op.set(keys.handoff(id), handoff).set(keys.wsHandoff(ws, id), id);
    indexRecord(op, contextDoc(handoff));
    bump(op, ws, "handoffs", 1);
    const tell = writeTask(ctx, op, before, after);
    return {
      op,
      value: {
        handoff: handoffOut(ctx, handoff, after),
        task: taskOut(after),
        superseded: before.handoff,
      },
      tell,
    };
  });
}

/**
 * Accepts a handoff as the caller: the task becomes `in_progress` and the caller its owner.
 * Refuses one already accepted (naming who and when), obsolete or superseded.
 */
export async function acceptHandoff(
  ctx: TableCtx,
  caller: Caller,
  input: { handoff_id: string },
): Promise<{ handoff: Handoff; task: Task; warning?: string }> {
  const id = checkUlid("handoff_id", input.handoff_id);
  return await commitWithRetry(async () => {
    const hEntry = await readKey<StoredHandoff>(ctx.kv, keys.handoff(id));
    const h = requireRecord(hEntry, "handoff", id, "get_handoffs");
    const tEntry = await readKey<StoredTask>(ctx.kv, keys.task(h.task_id));
    const task = tEntry.value;
    const state = handoffState(ctx, h, task);
    if (state === "accepted") {
      throw new AppError(
        "conflict",
        `Handoff ${id} was already accepted by ${h.accepted_by!.name} (via ${
          h.accepted_by!.via
        }) at ${h.accepted_at}`,
        "already_accepted",
      );
    }
    if (state === "obsolete") {
      throw new AppError("conflict", `Handoff ${id} is obsolete: its task is done`, "obsolete");
    }
    if (state === "superseded") {
      throw new AppError(
        "conflict",
        `Handoff ${id} is superseded: the task was handed off again later (handoff ${
          task!.last_handoff
        }); accept that one`,
        "superseded",
      );
    }
    checkOwnerAccepts(ctx, caller, h, id);
    const before = task!;
    const op = atomic(ctx.kv).check(hEntry).check(tEntry);
    const author = noteParticipant(op, h.workspace, caller, "actions");
    const at = nowIso(ctx.settings.now());
    const accepted: StoredHandoff = { ...h, accepted_by: author, accepted_at: at };
    const after: StoredTask = {
      ...before,
      status: "in_progress",
      assigned_to: caller.name,
      handoff: null,
      handoff_to: caller.name,
      updated_by: author,
      updated_at: at,
    };
    op.set(keys.handoff(id), accepted);
    const tell = writeTask(ctx, op, before, after);
    const value: { handoff: Handoff; task: Task; warning?: string } = {
      handoff: handoffOut(ctx, accepted, after),
      task: taskOut(after),
    };
    if (h.to.toLowerCase() !== caller.name.toLowerCase()) {
      value.warning =
        `This handoff was addressed to ${h.to}; you accepted it as ${caller.name}, so the task is now yours.`;
    }
    return { op, value, tell };
  });
}

/**
 * A handoff addressed to the owner (`OWNER_NAME`) is theirs to take: anyone else accepting it
 * would make the person's work their own under the person's eyes. Only a caller proven to be the
 * owner may (`provenOwner`: the console, or an `AUTH_TOKENS` token with their name).
 */
function checkOwnerAccepts(ctx: TableCtx, caller: Caller, h: StoredHandoff, id: string): void {
  const owner = ctx.settings.ownerName;
  if (!sameName(h.to, owner) || provenOwner(caller, owner)) return;
  throw new AppError(
    "invalid",
    `Handoff ${id} is addressed to ${h.to}, the owner (OWNER_NAME), and only the owner accepts it: in the owner console (/console), or with a token of AUTH_TOKENS named ${owner}. You are ${caller.name} (via ${caller.via}), which does not prove that; hand the task on with create_handoff if it should be someone else's.`,
    "owner_only",
  );
}

/** Handoffs of a workspace, newest first, with their states, filtered. */
export async function getHandoffs(
  ctx: TableCtx,
  input: {
    workspace?: string;
    status?: HandoffState;
    to?: string;
    task_id?: string;
    limit?: number;
    after_id?: string;
  },
): Promise<WorkspaceChoice & { handoffs: Handoff[]; has_more: boolean; total: number }> {
  const choice = chooseWorkspace(ctx, input.workspace);
  const limit = checkLimit(ctx, input.limit);
  const to = input.to === undefined ? undefined : checkName(ctx, "to", input.to).toLowerCase();
  if (input.task_id !== undefined) checkUlid("task_id", input.task_id);
  const keep = to === undefined && input.task_id === undefined
    ? undefined
    : (h: StoredHandoff) =>
      (to === undefined || h.to.toLowerCase() === to) &&
      (input.task_id === undefined || h.task_id === input.task_id);
  const prefix = keys.wsHandoffsIn(choice.workspace);
  if (input.status === undefined) {
    // The state is computed from each handoff's task: only the page's tasks need reading.
    const { page, ...counts } = await pageIndexed<StoredHandoff>(
      ctx,
      prefix,
      keys.handoff,
      limit,
      keep,
      input.after_id,
    );
    return { ...choice, handoffs: await withTasks(ctx, page), ...counts };
  }
  // A state filter has to see every handoff (and its task) before it can count the matches.
  const stored = await readIndexed<StoredHandoff>(ctx, prefix, keys.handoff);
  const matching = (await withTasks(ctx, keep ? stored.filter(keep) : stored))
    .filter((h) => h.state === input.status);
  const after = input.after_id === undefined ? undefined : checkUlid("after_id", input.after_id);
  const rest = after === undefined ? matching : matching.filter((h) => h.id < after);
  return {
    ...choice,
    handoffs: rest.slice(0, limit),
    has_more: rest.length > limit,
    total: matching.length,
  };
}

/** Reads handoffs by id with their tasks, so their states can be computed. */
export async function readHandoffs(ctx: TableCtx, ids: string[]): Promise<Handoff[]> {
  return await withTasks(ctx, await readRecords<StoredHandoff>(ctx, ids, keys.handoff));
}

async function withTasks(ctx: TableCtx, stored: StoredHandoff[]): Promise<Handoff[]> {
  const taskIds = [...new Set(stored.map((h) => h.task_id))];
  const tasks = new Map((await readTasks(ctx, taskIds)).map((t) => [t.id, t]));
  return stored.map((h) => handoffOut(ctx, h, tasks.get(h.task_id) ?? null));
}
