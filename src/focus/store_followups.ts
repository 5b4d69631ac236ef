/**
 * The index of a project's open follow-ups (open cleanup and record tasks), which `get_state`
 * lists. It keeps copies of what `get_state` shows (id, kind, time, body) packed into a few
 * blocks of up to ~60 KB, one line per follow-up (`id TAB kind TAB createdAt TAB body`; a body is
 * one line), so reading 500 follow-ups is one short list of strings, not 500 entries (Deno KV
 * spends microseconds per listed entry and per deserialized object) plus a read per task. A task
 * never changes while open, so the copies cannot go stale; they are written in the same atomics
 * as the tasks and the project record, whose check guards every block write. Databases written
 * before the blocks kept one entry per task; `store_migrate.ts` moves them into blocks at start.
 */

import { listAll, listEntries } from "../kit/reads.ts";
import {
  followUpBlockKey,
  followUpBlockPrefix,
  type Project,
  type Task,
  type TaskKind,
} from "./store_keys.ts";

/** An open follow-up as the index keeps it. */
export interface OpenFollowUp {
  id: string;
  kind: TaskKind;
  body: string;
  createdAt: string;
}

/** Largest size of one block's value in bytes, well under KV's 64 KiB. */
export const BLOCK_BYTES = 60_000;

/** The project's open follow-ups, oldest first. */
export async function readOpenFollowUps(
  kv: Deno.Kv,
  projectId: string,
  project: Project | null,
): Promise<Task[]> {
  if (project === null || project.openFollowUps === 0) return [];
  const blocks = await listAll<string>(kv, { prefix: followUpBlockPrefix(projectId) });
  const tasks: Task[] = [];
  for (const block of blocks) parseBlock(block.value, projectId, tasks);
  return tasks;
}

/**
 * Adds `followUps` (in order) to the index in `op`. `project` is the record as read in this
 * attempt (the caller checks it and sets it afterwards).
 */
export async function indexFollowUps(
  kv: Deno.Kv,
  op: Deno.AtomicOperation,
  project: Project,
  followUps: readonly OpenFollowUp[],
): Promise<void> {
  if (followUps.length === 0) return;
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
    if (block !== undefined && fits(block, line)) {
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

/** `followUps` (in order) as whole blocks, numbered from 0: what a fresh index holds. */
export function packBlocks(followUps: readonly OpenFollowUp[]): string[] {
  const blocks: string[] = [];
  for (const f of followUps) {
    const line = lineOf(f);
    const last = blocks.at(-1);
    if (last !== undefined && fits(last, line)) blocks[blocks.length - 1] = `${last}\n${line}`;
    else blocks.push(line);
  }
  return blocks;
}

/** Two bytes per UTF-16 unit: the most KV's serializer spends on a string. */
function fits(block: string, line: string): boolean {
  return (block.length + 1 + line.length) * 2 <= BLOCK_BYTES;
}

/** Removes the follow-up `taskId` from the index in `op`. */
export async function unindexFollowUp(
  kv: Deno.Kv,
  op: Deno.AtomicOperation,
  project: Project,
  taskId: string,
): Promise<void> {
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
