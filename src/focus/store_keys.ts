/**
 * The focus toolset's records and their KV keys: a project, its one focus, its tasks, and the
 * open follow-up index. Every focus store module builds its keys here, so no key is written
 * literally twice and no store module needs another's types.
 */

import { bool, count, defineRecords, obj, oneOf, opt, str } from "../kit/record_shapes.ts";

/** A project: its north star once set, and how many follow-ups are open. */
export interface Project {
  id: string;
  /** Never empty once set; absent until `set_north_star` is first called. */
  northStar?: string;
  /** Open cleanup/record tasks, kept in the same atomics as the tasks so the limit holds. */
  openFollowUps: number;
  /**
   * True once the open follow-up index is in blocks (see `store_followups.ts`); every project
   * with open follow-ups has it after the start-up migration (`store_migrate.ts`).
   */
  followUpsPacked?: true;
  createdAt: string;
  updatedAt: string;
}

/** The one thing to do now. */
export interface Focus {
  statement: string;
  why?: string;
  updatedAt: string;
}

/** The kinds of task; only `main` is not demoted. */
export const TASK_KINDS = ["main", "cleanup", "record"] as const;
/** One kind of task. */
export type TaskKind = typeof TASK_KINDS[number];

/** A task of a project. `demoted` is derived from `kind` here, never taken from a caller. */
export interface Task {
  id: string;
  projectId: string;
  body: string;
  kind: TaskKind;
  demoted: boolean;
  status: "open" | "done";
  createdAt: string;
  doneAt?: string;
}

/** Everything `get_state` shows. */
export interface FocusState {
  projectId: string;
  project: Project | null;
  focus: Focus | null;
  /** Open demoted tasks, oldest first. */
  followUps: Task[];
}

/** Prefix of every project record, in id order. */
export const PROJECTS_PREFIX: Deno.KvKey = ["project"];
/** Key of a project record. */
export function projectKey(projectId: string): Deno.KvKey {
  return [...PROJECTS_PREFIX, projectId];
}
/** Prefix of every project's focus. */
export const FOCUS_PREFIX: Deno.KvKey = ["focus"];
/** Key of a project's single focus. */
export function focusKey(projectId: string): Deno.KvKey {
  return [...FOCUS_PREFIX, projectId];
}
/** Prefix of the tasks of every project, or of one. */
export function taskPrefix(projectId?: string): Deno.KvKey {
  return projectId === undefined ? ["task"] : ["task", projectId];
}
/** Key of one task; task ids are ULIDs, so a prefix list is creation order. */
export function taskKey(projectId: string, taskId: string): Deno.KvKey {
  return [...taskPrefix(projectId), taskId];
}
/** Prefix of the pointers from task ids to their projects. */
export const TASK_PROJECT_PREFIX: Deno.KvKey = ["task_project"];
/** Pointer from a task id to its project, so a task can be completed by id alone. */
export function taskProjectKey(taskId: string): Deno.KvKey {
  return [...TASK_PROJECT_PREFIX, taskId];
}
/** Prefix of a project's follow-up blocks, numbered from 0 in the order they were opened. */
export function followUpBlockPrefix(projectId: string): Deno.KvKey {
  return ["task_open_followups", projectId];
}
/** Key of one block of open follow-ups. */
export function followUpBlockKey(projectId: string, block: number): Deno.KvKey {
  return [...followUpBlockPrefix(projectId), block];
}
/**
 * Prefix of the older follow-up index (one entry per open follow-up, its value the bare task
 * id), of every project or of one. Only the start-up migration reads it.
 */
export function legacyFollowUpPrefix(projectId?: string): Deno.KvKey {
  return projectId === undefined ? ["task_open_followup"] : ["task_open_followup", projectId];
}
/** Key of one entry of the older index (tests write it to make an old database). */
export function legacyFollowUpKey(projectId: string, taskId: string): Deno.KvKey {
  return [...legacyFollowUpPrefix(projectId), taskId];
}

// The focus families' shapes (only what the code relies on): the kit's read helpers refuse a
// damaged record as `damaged` (naming its key), and import checks every line of these families.
// The older follow-up index (`task_open_followup`) is left out: only the migration reads it.
defineRecords({
  project: {
    key: ["string"],
    value: obj({
      id: str,
      northStar: opt(str),
      openFollowUps: count,
      createdAt: str,
      updatedAt: str,
    }),
  },
  focus: { key: ["string"], value: obj({ statement: str, why: opt(str), updatedAt: str }) },
  task: {
    key: ["string", "string"],
    value: obj({
      id: str,
      projectId: str,
      body: str,
      kind: oneOf(TASK_KINDS),
      demoted: bool,
      status: oneOf(["open", "done"]),
      createdAt: str,
    }),
  },
  task_project: { key: ["string"], value: str },
  task_open_followups: { key: ["string", "number"], value: str },
});
