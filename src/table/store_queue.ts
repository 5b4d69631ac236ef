/**
 * What waits for one person across every workspace: decisions awaiting a verdict, handoffs
 * addressed to them, tasks they own. Read for the owner console; the longest waiting come first.
 */

import { AppError } from "../kit/errors.ts";
import { listAll } from "../kit/reads.ts";
import { checkUlid, readRecords, type TableCtx } from "./store_common.ts";
import { type Decision, decisionsOut } from "./store_decisions.ts";
import { type Handoff, readHandoffs } from "./store_handoffs.ts";
import { keys, type StoredDecision } from "./store_schema.ts";
import { readTasks, type Task, taskOut } from "./store_tasks.ts";

/** One list of the queue: the first `limit` items and how many there are. */
export interface QueueList<T> {
  items: T[];
  total: number;
  has_more: boolean;
}

/** What waits for a person, in every workspace. */
export interface OwnerQueue {
  /** Decisions awaiting a verdict, oldest first. */
  decisions: QueueList<Decision>;
  /** Handoffs to the person not yet accepted: stale ones first, then oldest first. */
  handoffs: QueueList<Handoff>;
  /** Tasks the person owns that are not done and did not arrive by a waiting handoff. */
  tasks: QueueList<Task>;
}

const STATE_ORDER: Record<string, number> = { stale: 0, waiting: 1 };

function cut<T>(all: T[], limit: number): QueueList<T> {
  return { items: all.slice(0, limit), total: all.length, has_more: all.length > limit };
}

/** What waits for `name` across workspaces, each list cut at `limit`. */
export async function ownerQueue(ctx: TableCtx, name: string, limit: number): Promise<OwnerQueue> {
  const lower = name.toLowerCase();
  const [open, addressed, owned] = await Promise.all([
    listAll<string>(ctx.kv, { prefix: keys.openDecisionsAll() }),
    listAll<string>(ctx.kv, { prefix: keys.addressedTo(name) }),
    listAll<string>(ctx.kv, { prefix: keys.ownedBy(name) }),
  ]);
  const decisions = decisionsOut(
    await readRecords<StoredDecision>(ctx, open.map((e) => e.value), keys.decision),
  ).sort((a, b) => a.created_at.localeCompare(b.created_at));
  const handoffs = (await readHandoffs(ctx, addressed.map((e) => e.value)))
    .filter((h) => h.state in STATE_ORDER)
    .sort((a, b) =>
      STATE_ORDER[a.state] - STATE_ORDER[b.state] || a.created_at.localeCompare(b.created_at)
    );
  const tasks = (await readTasks(ctx, owned.map((e) => e.value)))
    .filter((t) => t.status !== "done")
    .filter((t) => !(t.handoff !== null && t.handoff_to?.toLowerCase() === lower))
    .map(taskOut)
    .sort((a, b) => a.updated_at.localeCompare(b.updated_at));
  return {
    decisions: cut(decisions, limit),
    handoffs: cut(handoffs, limit),
    tasks: cut(tasks, limit),
  };
}

/** One decision by id; not found is an error naming the id. */
export async function readDecision(ctx: TableCtx, id: string): Promise<Decision> {
  checkUlid("decision_id", id);
  const [found] = await readRecords<StoredDecision>(ctx, [id], keys.decision);
  if (found === undefined) throw new AppError("not_found", `No decision has id ${id}`);
  return decisionsOut([found])[0];
}

/** One handoff by id with its state; not found is an error naming the id. */
export async function readHandoff(ctx: TableCtx, id: string): Promise<Handoff> {
  checkUlid("handoff_id", id);
  const [found] = await readHandoffs(ctx, [id]);
  if (found === undefined) throw new AppError("not_found", `No handoff has id ${id}`);
  return found;
}

/** One task by id; not found is an error naming the id. */
export async function readTask(ctx: TableCtx, id: string): Promise<Task> {
  checkUlid("task_id", id);
  const [found] = await readTasks(ctx, [id]);
  if (found === undefined) throw new AppError("not_found", `No task has id ${id}`);
  return taskOut(found);
}
