/**
 * Tasks with owners. Every write of a task goes through `writeTask`, which keeps the status
 * counts, the owner index and the pending-handoff index in the same atomic as the record.
 */

import { indexRecord } from "../kit/search_source.ts";
import { taskDoc } from "./search.ts";
import { atomic, commitWithRetry, type Tell } from "../kit/commit.ts";
import type { Caller } from "../kit/caller.ts";
import { AppError } from "../kit/errors.ts";
import { readKey } from "../kit/reads.ts";
import { nowIso } from "../kit/time.ts";
import {
  bump,
  checkBody,
  checkLimit,
  checkName,
  checkTitle,
  checkUlid,
  chooseWorkspace,
  newRecord,
  noteParticipant,
  pageIndexed,
  readRecords,
  requireRecord,
  type TableCtx,
  type WorkspaceChoice,
} from "./store_common.ts";
import { checkDiscussionIn } from "./store_discussions.ts";
import { announce, waitingTopic } from "./store_notices.ts";
import {
  type Author,
  keys,
  pack,
  type StoredTask,
  type TaskStatus,
  unpack,
} from "./store_schema.ts";

/** A task as tools and pages show it: `handoff` is always present, `null` when none waits. */
export interface Task {
  id: string;
  workspace: string;
  title: string;
  detail: string | null;
  discussion_id: string | null;
  status: TaskStatus;
  assigned_to: string | null;
  handoff: string | null;
  parked: boolean;
  created_by: Author;
  created_at: string;
  updated_by: Author | null;
  updated_at: string;
  /** Present when the task has an owner who never got its context through a handoff. */
  note?: string;
}

/** The handoff waiting on `t`, if any: only while the task is not done. */
function pendingHandoff(t: StoredTask): string | null {
  return t.status !== "done" && t.handoff !== null ? t.handoff : null;
}

/** The readable form of a stored task, with the no-handoff note where it applies. */
export function taskOut(t: StoredTask): Task {
  const detail = t.detail === undefined ? null : unpack(t.detail);
  const out: Task = {
    id: t.id,
    workspace: t.workspace,
    title: t.title,
    detail,
    discussion_id: t.discussion_id ?? null,
    status: t.status,
    assigned_to: t.assigned_to,
    handoff: pendingHandoff(t),
    parked: t.title.startsWith("PARKED") || (detail?.startsWith("PARKED") ?? false),
    created_by: t.created_by,
    created_at: t.created_at,
    updated_by: t.updated_by ?? null,
    updated_at: t.updated_at,
  };
  const owner = t.assigned_to;
  const handedToOwner = t.handoff_to !== null && owner !== null &&
    t.handoff_to.toLowerCase() === owner.toLowerCase();
  if (owner !== null && out.handoff === null && !handedToOwner && t.status !== "done") {
    out.note =
      `assigned to ${owner} but no handoff was created: ${owner} will not see the context. Call create_handoff with this task_id, to="${owner}" and the context they need.`;
  }
  return out;
}

/**
 * Adds the write of `after` (replacing `before`, or new) to `op`, with everything derived from
 * it: status counts, the owner index (tasks not done), the pending-handoff index, and a bump of
 * the waiting topic of everyone whose waiting items it changes. Returns whom the commit tells
 * once it lands (the attempt's `tell`).
 */
export function writeTask(
  ctx: TableCtx,
  op: Deno.AtomicOperation,
  before: StoredTask | null,
  after: StoredTask,
): Tell {
  writeTaskKeys(op, before, after);
  const topics = waitingChangedFor(before, after).map((name) =>
    waitingTopic(after.workspace, name)
  );
  return announce(ctx, op, topics);
}

/**
 * Whose waiting items (`waiting_for_you`: tasks they own not done, handoffs to them not yet
 * accepted) `before` → `after` changes: a task assigned, handed off, accepted, finished, or
 * its pending handoff superseded. A change of detail alone changes nobody's.
 */
function waitingChangedFor(before: StoredTask | null, after: StoredTask): string[] {
  const owner = (t: StoredTask | null) => t && t.status !== "done" ? t.assigned_to : null;
  const to = (t: StoredTask | null) => t && pendingHandoff(t) !== null ? t.handoff_to : null;
  const same = before !== null && before.status === after.status &&
    owner(before) === owner(after) && pendingHandoff(before) === pendingHandoff(after);
  if (same) return [];
  const names = [owner(before), owner(after), to(before), to(after)]
    .flatMap((n) => n === null ? [] : [n.toLowerCase()]);
  return [...new Set(names)];
}

function writeTaskKeys(
  op: Deno.AtomicOperation,
  before: StoredTask | null,
  after: StoredTask,
): void {
  const ws = after.workspace;
  op.set(keys.task(after.id), after);
  // Only a new task or a new detail changes what search finds (status changes do not).
  if (before === null || before.detail !== after.detail) {
    indexRecord(op, taskDoc(after), before !== null);
  }
  if (before === null) op.set(keys.wsTask(ws, after.id), after.id);
  if (before) bump(op, ws, `tasks_${before.status}`, -1);
  bump(op, ws, `tasks_${after.status}`, 1);
  if (before && before.status !== "done" && before.assigned_to !== null) {
    op.delete(keys.owner(before.assigned_to, ws, before.id));
  }
  if (after.status !== "done" && after.assigned_to !== null) {
    op.set(keys.owner(after.assigned_to, ws, after.id), after.id);
  }
  const was = before && pendingHandoff(before);
  if (was) {
    op.delete(keys.pending(ws, was)).delete(keys.addressee(before!.handoff_to!, ws, was));
    bump(op, ws, "handoffs_pending", -1);
  }
  const now = pendingHandoff(after);
  if (now) {
    op.set(keys.pending(ws, now), now).set(keys.addressee(after.handoff_to!, ws, now), now);
    bump(op, ws, "handoffs_pending", 1);
  }
}

/** What `create_task` takes. */
export interface NewTask {
  title: string;
  detail?: string;
  workspace?: string;
  discussion_id?: string;
  assigned_to?: string;
}

/** Creates an open task, with an owner or without. */
export async function createTask(
  ctx: TableCtx,
  caller: Caller,
  input: NewTask,
): Promise<WorkspaceChoice & { task: Task }> {
  const choice = chooseWorkspace(ctx, input.workspace);
  const ws = choice.workspace;
  const title = checkTitle(ctx, "title", input.title);
  const detail = input.detail === undefined
    ? undefined
    : checkBody(ctx, "detail", input.detail, "messageMaxBytes");
  const owner = input.assigned_to === undefined
    ? null
    : checkName(ctx, "assigned_to", input.assigned_to);
  await checkDiscussionIn(ctx, input.discussion_id, ws);
  return await commitWithRetry(() => {
    const { id, op, author } = newRecord(ctx, ws, caller, keys.task);
    const at = nowIso(ctx.settings.now());
    const task: StoredTask = {
      id,
      workspace: ws,
      title,
      ...(detail === undefined ? {} : { detail: pack(detail) }),
      ...(input.discussion_id === undefined ? {} : { discussion_id: input.discussion_id }),
      status: "open",
      assigned_to: owner,
      handoff: null,
      handoff_to: null,
      last_handoff: null,
      created_by: author,
      created_at: at,
      updated_at: at,
    };
    const tell = writeTask(ctx, op, null, task);
    return Promise.resolve({ op, value: { ...choice, task: taskOut(task) }, tell });
  });
}

/** What `update_task` takes; `assigned_to: null` unassigns. */
export interface TaskChange {
  task_id: string;
  status?: TaskStatus;
  assigned_to?: string | null;
  detail?: string;
}

/** The result of `update_task`, with a warning when someone else's task was closed or blocked. */
export interface TaskUpdate {
  task: Task;
  changed: string[];
  cross_task_warning?: string;
  acted_as?: string;
}

/** Changes a task's status, owner or detail; recording who changed it. */
export async function updateTask(
  ctx: TableCtx,
  caller: Caller,
  input: TaskChange,
): Promise<TaskUpdate> {
  const id = checkUlid("task_id", input.task_id);
  if (input.status === undefined && input.assigned_to === undefined && input.detail === undefined) {
    throw new AppError(
      "invalid",
      "Nothing to change: give status, assigned_to (null unassigns) or detail",
    );
  }
  const owner = input.assigned_to === undefined || input.assigned_to === null
    ? input.assigned_to
    : checkName(ctx, "assigned_to", input.assigned_to);
  const detail = input.detail === undefined
    ? undefined
    : checkBody(ctx, "detail", input.detail, "messageMaxBytes");
  return await commitWithRetry(async () => {
    const entry = await readKey<StoredTask>(ctx.kv, keys.task(id));
    const before = requireTask(entry, id);
    const op = atomic(ctx.kv).check(entry);
    const author = noteParticipant(op, before.workspace, caller, "actions");
    const after: StoredTask = {
      ...before,
      ...(input.status === undefined ? {} : { status: input.status }),
      ...(owner === undefined ? {} : { assigned_to: owner }),
      ...(detail === undefined ? {} : { detail: pack(detail) }),
      updated_by: author,
      updated_at: nowIso(ctx.settings.now()),
    };
    const tell = writeTask(ctx, op, before, after);
    const changed = [
      ...(input.status === undefined ? [] : ["status"]),
      ...(owner === undefined ? [] : ["assigned_to"]),
      ...(detail === undefined ? [] : ["detail"]),
    ];
    const result: TaskUpdate = { task: taskOut(after), changed };
    const closing = input.status === "done" || input.status === "blocked";
    if (
      closing && before.assigned_to !== null &&
      before.assigned_to.toLowerCase() !== caller.name.toLowerCase()
    ) {
      result.cross_task_warning =
        `This task is assigned to ${before.assigned_to}, not to you (${caller.name}): you set it ${input.status} on their behalf. Tell ${before.assigned_to}, or hand the task over first.`;
      result.acted_as = caller.name;
    }
    return { op, value: result, tell };
  });
}

/** The task of `entry`, or not found. */
export function requireTask(entry: Deno.KvEntryMaybe<StoredTask>, id: string): StoredTask {
  return requireRecord(entry, "task", id, "get_tasks");
}

/** Tasks of a workspace, newest first, filtered by status and owner (case-insensitive). */
export async function getTasks(
  ctx: TableCtx,
  input: {
    workspace?: string;
    status?: TaskStatus;
    assigned_to?: string;
    limit?: number;
    after_id?: string;
  },
): Promise<WorkspaceChoice & { tasks: Task[]; has_more: boolean; total: number }> {
  const choice = chooseWorkspace(ctx, input.workspace);
  const limit = checkLimit(ctx, input.limit);
  const who = input.assigned_to === undefined
    ? undefined
    : checkName(ctx, "assigned_to", input.assigned_to).toLowerCase();
  const keep = input.status === undefined && who === undefined
    ? undefined
    : (t: StoredTask) =>
      (input.status === undefined || t.status === input.status) &&
      (who === undefined || t.assigned_to?.toLowerCase() === who);
  const { page, ...counts } = await pageIndexed<StoredTask>(
    ctx,
    keys.wsTasksIn(choice.workspace),
    keys.task,
    limit,
    keep,
    input.after_id,
  );
  return { ...choice, tasks: page.map(taskOut), ...counts };
}

/** Reads tasks by id, skipping any that are gone. */
export async function readTasks(ctx: TableCtx, ids: string[]): Promise<StoredTask[]> {
  return await readRecords<StoredTask>(ctx, ids, keys.task);
}
