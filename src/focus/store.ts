/** The focus toolset's records in KV: a project's north star, its one focus, and its tasks. */

import { indexRecord } from "../kit/search_source.ts";
import { focusDoc, followUpDoc, northStarDoc } from "./search.ts";
import {
  atomic,
  type BatchAttempt,
  commitBatched,
  commitWithRetry,
  type Tell,
} from "../kit/commit.ts";
import { bumpNotices } from "../kit/notice_feed.ts";
import { type NoticeBus, RESOURCE_LIST_CHANGED } from "../kit/notices.ts";
import type { FocusLimits } from "./settings.ts";
import { AppError, invalid } from "../kit/errors.ts";
import { isUlid, ulid } from "../kit/ids.ts";
import { readKey, readKeys } from "../kit/reads.ts";
import { nowIso } from "../kit/time.ts";
import type { FocusStateCache } from "./store_cache.ts";
import {
  indexFollowUps,
  type OpenFollowUp,
  readOpenFollowUps,
  unindexFollowUp,
} from "./store_followups.ts";
import {
  type Focus,
  focusKey,
  type FocusState,
  type Project,
  projectKey,
  type Task,
  TASK_KINDS,
  taskKey,
  type TaskKind,
  taskProjectKey,
} from "./store_keys.ts";
import { checkId, checkLine } from "../kit/text.ts";

/** Checks a project id: 1–max characters, not blank, no control characters or lone surrogates. */
export function validateProjectId(projectId: string, limits: FocusLimits): string {
  return checkId(projectId, limits.projectIdMax, { name: "project_id" });
}

/**
 * Checks one line of text and returns it trimmed. The `get_state` format is one line per item,
 * so line breaks are refused rather than silently joined.
 */
export function validateLine(
  field: string,
  text: string,
  limits: FocusLimits,
  what: string,
): string {
  return checkLine(text, limits.textMax, { name: field, what });
}

/** A fresh project record, or the stored one with `updatedAt` moved on. */
function touched(existing: Project | null, projectId: string, now: string): Project {
  return existing
    ? { ...existing, updatedAt: now }
    : { id: projectId, openFollowUps: 0, createdAt: now, updatedAt: now };
}

/**
 * A write that creates a project changes the list of resources (one per project): it bumps
 * that topic's key in its own atomic, so sessions in every process on the database hear of it,
 * and returns whom the commit tells once it lands (this process's listeners; its own feed then
 * stays quiet).
 */
function announceCreated(
  op: Deno.AtomicOperation,
  existing: Project | null,
  notices: NoticeBus | undefined,
): Tell | undefined {
  if (existing !== null) return undefined;
  bumpNotices(op, [RESOURCE_LIST_CHANGED]);
  return { bus: notices, topics: [RESOURCE_LIST_CHANGED] };
}

/** Sets (or replaces) the north star, creating the project if needed. */
export async function setNorthStar(
  kv: Deno.Kv,
  limits: FocusLimits,
  projectId: string,
  text: string,
  notices?: NoticeBus,
): Promise<Project> {
  const what = "Cannot set north star";
  validateProjectId(projectId, limits);
  const northStar = validateLine("text", text, limits, what);
  return await commitWithRetry(async () => {
    const current = await readKey<Project>(kv, projectKey(projectId));
    const now = nowIso();
    const project = { ...touched(current.value, projectId, now), northStar };
    const op = atomic(kv).check(current).set(projectKey(projectId), project);
    indexRecord(op, northStarDoc(projectId, northStar, now), true);
    return { op, value: project, tell: announceCreated(op, current.value, notices) };
  });
}

/** Upserts the project's one focus; a missing or empty `why` clears the earlier one. */
export async function setFocus(
  kv: Deno.Kv,
  limits: FocusLimits,
  projectId: string,
  statement: string,
  why?: string,
  notices?: NoticeBus,
): Promise<Focus> {
  const what = "Cannot set focus";
  validateProjectId(projectId, limits);
  const focus: Focus = {
    statement: validateLine("statement", statement, limits, what),
    updatedAt: "",
  };
  if (why !== undefined && why.trim() !== "") focus.why = validateLine("why", why, limits, what);
  return await commitWithRetry(async () => {
    const current = await readKey<Project>(kv, projectKey(projectId));
    const now = nowIso();
    const value = { ...focus, updatedAt: now };
    const op = atomic(kv)
      .check(current)
      .set(projectKey(projectId), touched(current.value, projectId, now))
      .set(focusKey(projectId), value);
    indexRecord(op, focusDoc(projectId, value), true);
    return { op, value, tell: announceCreated(op, current.value, notices) };
  });
}

/** Adds a task. Cleanup and record tasks are demoted; open ones count against the limit. */
export async function addTask(
  kv: Deno.Kv,
  limits: FocusLimits,
  projectId: string,
  body: string,
  kind: string,
): Promise<Task> {
  return (await addTaskWithState(kv, limits, projectId, body, kind)).task;
}

/** An `add_task` waiting for its project's turn, checked and given its id on arrival. */
interface NewTask {
  id: string;
  body: string;
  kind: TaskKind;
}

/** Most tasks one batch carries, and most characters of their bodies (an atomic holds 800 KiB). */
const TASK_BATCH = { tasks: 24, chars: 64 * 1024 };

/**
 * Adds a task and returns the project's state just after it, as `getState` would read it: what
 * the write read is guarded by its check of the project record (every write to the focus or
 * the follow-up index also writes that record), so no second read is needed. With `cache`, the
 * state committed is kept for the next `get_state`. Tasks added to one project at once from
 * this process go in one atomic (see `commitBatched`); each is refused or added on its own, and
 * the state returned is the one that batch committed.
 */
export async function addTaskWithState(
  kv: Deno.Kv,
  limits: FocusLimits,
  projectId: string,
  body: string,
  kind: string,
  cache?: FocusStateCache,
  notices?: NoticeBus,
): Promise<{ task: Task; state: FocusState }> {
  const what = "Cannot add task";
  validateProjectId(projectId, limits);
  if (!(TASK_KINDS as readonly string[]).includes(kind)) {
    invalid(`${what}: kind must be one of ${TASK_KINDS.join(", ")}, got "${kind}"`);
  }
  const item: NewTask = {
    id: ulid(),
    body: validateLine("body", body, limits, what),
    kind: kind as TaskKind,
  };
  return await commitBatched<NewTask, { task: Task; state: FocusState }>(
    { kv, key: projectKey(projectId) },
    item,
    (items) => addTasksAttempt(kv, limits, projectId, items, cache, notices),
    (batch, next) =>
      batch.length < TASK_BATCH.tasks &&
      batch.reduce((n, t) => n + t.body.length, next.body.length) <= TASK_BATCH.chars,
  );
}

/**
 * One try at adding `items` to the project: reads its state, refuses the follow-ups past the
 * limit, and writes the rest with the project record in one atomic.
 */
async function addTasksAttempt(
  kv: Deno.Kv,
  limits: FocusLimits,
  projectId: string,
  items: readonly NewTask[],
  cache: FocusStateCache | undefined,
  notices: NoticeBus | undefined,
): Promise<BatchAttempt<{ task: Task; state: FocusState }>> {
  const { current, focus, followUps } = await readForWrite(kv, projectId);
  const now = nowIso();
  const project = touched(current.value, projectId, now);
  const op = atomic(kv).check(current);
  const tell = announceCreated(op, current.value, notices);
  const added: (Task | AppError)[] = [];
  const indexed: OpenFollowUp[] = [];
  for (const { id, body, kind } of items) {
    const demoted = kind !== "main";
    if (demoted && project.openFollowUps + indexed.length >= limits.openFollowUpsMax) {
      added.push(
        new AppError(
          "full",
          `Cannot add task: project "${projectId}" already has ${
            project.openFollowUps + indexed.length
          } open follow-ups (cleanup/record); at most ${limits.openFollowUpsMax} are allowed. Complete some with complete_task first`,
        ),
      );
      continue;
    }
    const task: Task = { id, projectId, body, kind, demoted, status: "open", createdAt: now };
    op.check({ key: taskKey(projectId, id), versionstamp: null })
      .set(taskKey(projectId, id), task)
      .set(taskProjectKey(id), projectId);
    if (demoted) {
      indexRecord(op, followUpDoc(task));
      indexed.push({ id, kind, body, createdAt: now });
      followUps.push(task);
    }
    added.push(task);
  }
  const state: FocusState = { projectId, project, focus, followUps };
  const value = added.map((t) =>
    t instanceof AppError ? { error: t } : { value: { task: t, state } }
  );
  if (added.every((t) => t instanceof AppError)) return { value };
  // Before the count moves: the index's shape depends on what was open before.
  await indexFollowUps(kv, op, project, indexed);
  project.openFollowUps += indexed.length;
  op.set(projectKey(projectId), project);
  return {
    op,
    value,
    tell,
    // The commit's versionstamp is the project record's new one.
    committed: (versionstamp) => cache?.put(versionstamp, state),
  };
}

/** The project, its focus and its open follow-ups, read for a write that checks the project. */
async function readForWrite(kv: Deno.Kv, projectId: string) {
  const [current, focus] = await readKeys<[Project, Focus]>(kv, [
    projectKey(projectId),
    focusKey(projectId),
  ]);
  const followUps = await readOpenFollowUps(kv, projectId, current.value);
  return { current, focus: focus.value, followUps };
}

/** What `completeTask` did. */
export interface CompleteResult {
  task: Task;
  alreadyDone: boolean;
}

/** Marks a task done by its id alone; completing a done task again changes nothing. */
export async function completeTask(kv: Deno.Kv, taskId: string): Promise<CompleteResult> {
  const unknown = `Cannot complete task: no task has id "${taskId}" (ids come from add_task)`;
  if (!isUlid(taskId)) throw new AppError("not_found", unknown);
  // The pointer never changes once written, so it is read once, outside the write's turn.
  const pointer = await readKey<string>(kv, taskProjectKey(taskId));
  if (pointer.value === null) throw new AppError("not_found", unknown);
  const projectId = pointer.value;
  return await commitWithRetry<CompleteResult>(async () => {
    const [taskEntry, projectEntry] = await readKeys<[Task, Project]>(kv, [
      taskKey(projectId, taskId),
      projectKey(projectId),
    ]);
    if (taskEntry.value === null || projectEntry.value === null) {
      throw new AppError("not_found", unknown);
    }
    if (taskEntry.value.status === "done") {
      return { value: { task: taskEntry.value, alreadyDone: true } };
    }
    const now = nowIso();
    const task: Task = { ...taskEntry.value, status: "done", doneAt: now };
    const project = { ...projectEntry.value, updatedAt: now };
    const op = atomic(kv).check(taskEntry, projectEntry).set(taskKey(projectId, taskId), task);
    if (task.demoted) {
      await unindexFollowUp(kv, op, project, taskId);
      project.openFollowUps = Math.max(0, project.openFollowUps - 1);
    }
    op.set(projectKey(projectId), project);
    return { op, value: { task, alreadyDone: false } };
  });
}
