/**
 * The index of a project's open follow-ups (open cleanup and record tasks), which `get_state`
 * lists. It keeps copies of what `get_state` shows (id, kind, time, body) packed into a few
 * blocks of up to ~60 KB, one line per follow-up (`id TAB kind TAB createdAt TAB body`; a body is
 * one line), so reading 500 follow-ups is one short list of strings, not 500 entries (Deno KV
 * spends microseconds per listed entry and per deserialized object) plus a read per task. A task
 * never changes while open, so the copies cannot go stale; they are written in the same atomics
 * as the tasks and the project record, whose check guards every block write.
 *
 * Databases written before this keep one entry per task under `task_open_followup` holding the
 * bare task id. A project with such entries (`followUpsPacked` unset and follow-ups open) keeps
 * that shape until its last open follow-up is done; then its next write switches it to blocks.
 */

import { getAll, listAll, listEntries } from "../kit/kv.ts";
import type { Project, Task, TaskKind } from "./store.ts";

/** An open follow-up as the index keeps it. */
export interface OpenFollowUp {
  id: string;
  kind: TaskKind;
  body: string;
  createdAt: string;
}

/** Largest size of one block's value in bytes, well under KV's 64 KiB. */
const BLOCK_BYTES = 60_000;

/** Prefix of a project's follow-up blocks, numbered from 0 in the order they were opened. */
export function followUpBlockPrefix(projectId: string): Deno.KvKey {
  return ["task_open_followups", projectId];
}
/** Key of one block of open follow-ups. */
export function followUpBlockKey(projectId: string, block: number): Deno.KvKey {
  return [...followUpBlockPrefix(projectId), block];
}
/** Prefix of the older index: one entry per open follow-up, its value the bare task id. */
export function legacyFollowUpPrefix(projectId: string): Deno.KvKey {
  return ["task_open_followup", projectId];
}
/** Key of one entry of the older index. */
export function legacyFollowUpKey(projectId: string, taskId: string): Deno.KvKey {
  return [...legacyFollowUpPrefix(projectId), taskId];
}

/** True when the project's open follow-ups live in blocks (or it has none left in the old shape). */
export function usesBlocks(project: Project | null): boolean {
  return project === null || project.followUpsPacked === true || project.openFollowUps === 0;
}

/** The project's open follow-ups, oldest first, from whichever index shape it uses. */
export async function readOpenFollowUps(
  kv: Deno.Kv,
  projectId: string,
  project: Project | null,
): Promise<Task[]> {
  if (project === null || project.openFollowUps === 0) return [];
  if (project.followUpsPacked === true) {
    const blocks = await listAll<string>(kv, { prefix: followUpBlockPrefix(projectId) });
    const tasks: Task[] = [];
    for (const block of blocks) parseBlock(block.value, projectId, tasks);
    return tasks;
  }
  const ids = await listAll<string>(kv, { prefix: legacyFollowUpPrefix(projectId) });
  const tasks = await getAll<Task>(kv, ids.map((e) => ["task", projectId, e.value]));
  return tasks.flatMap((e) => e.value && e.value.status === "open" ? [e.value] : []);
}

/**
 * Adds `followUps` (in order) to the index in `op`. `project` is the record as read in this
 * attempt (the caller checks it and sets it afterwards); it is marked packed when it switches to
 * blocks.
 */
export async function indexFollowUps(
  kv: Deno.Kv,
  op: Deno.AtomicOperation,
  project: Project,
  followUps: readonly OpenFollowUp[],
): Promise<void> {
  if (followUps.length === 0) return;
  if (!usesBlocks(project)) {
    for (const f of followUps) op.set(legacyFollowUpKey(project.id, f.id), f.id);
    return;
  }
  project.followUpsPacked = true;
  const [last] = await listAll<string>(kv, { prefix: followUpBlockPrefix(project.id) }, {
    reverse: true,
    limit: 1,
  });
  let block = last?.value;
  let number = last ? (last.key.at(-1) as number) : -1;
  let changed = false;
  for (const f of followUps) {
    const line = lineOf(f);
    // Two bytes per UTF-16 unit: the most KV's serializer spends on a string.
    if (block !== undefined && (block.length + 1 + line.length) * 2 <= BLOCK_BYTES) {
      block = `${block}\n${line}`;
    } else {
      if (changed) op.set(followUpBlockKey(project.id, number), block!);
      number++;
      block = line;
    }
    changed = true;
  }
  op.set(followUpBlockKey(project.id, number), block!);
}

/** Removes the follow-up `taskId` from the index in `op`, in whichever shape holds it. */
export async function unindexFollowUp(
  kv: Deno.Kv,
  op: Deno.AtomicOperation,
  project: Project,
  taskId: string,
): Promise<void> {
  if (project.followUpsPacked !== true) {
    op.delete(legacyFollowUpKey(project.id, taskId));
    return;
  }
  for await (const block of listEntries<string>(kv, { prefix: followUpBlockPrefix(project.id) })) {
    const lines = block.value.split("\n");
    const kept = lines.filter((line) => !line.startsWith(`${taskId}\t`));
    if (kept.length === lines.length) continue;
    if (kept.length === 0) op.delete(block.key);
    else op.set(block.key, kept.join("\n"));
    return;
  }
}

/** A follow-up's line in a block. */
export function lineOf(f: OpenFollowUp): string {
  return `${f.id}\t${f.kind}\t${f.createdAt}\t${f.body}`;
}

/**
 * `followUps` (in order) packed into as few blocks as fit: the blocks `indexFollowUps` writes
 * into an empty index (backup/rebuild_focus.ts rebuilds an index with it).
 */
export function packBlocks(followUps: readonly OpenFollowUp[]): string[] {
  const blocks: string[] = [];
  for (const f of followUps) {
    const line = lineOf(f);
    const last = blocks.at(-1);
    if (last !== undefined && (last.length + 1 + line.length) * 2 <= BLOCK_BYTES) {
      blocks[blocks.length - 1] = `${last}\n${line}`;
    } else blocks.push(line);
  }
  return blocks;
}

/** Appends the open tasks of one block to `into`, in order. */
function parseBlock(block: string, projectId: string, into: Task[]): void {
  let start = 0;
  while (start < block.length) {
    let end = block.indexOf("\n", start);
    if (end === -1) end = block.length;
    const a = block.indexOf("\t", start);
    const b = block.indexOf("\t", a + 1);
    const c = block.indexOf("\t", b + 1);
    into.push({
      id: block.slice(start, a),
      projectId,
      body: block.slice(c + 1, end),
      kind: block.slice(a + 1, b) as TaskKind,
      demoted: true,
      status: "open",
      createdAt: block.slice(b + 1, c),
    });
    start = end + 1;
  }
}
