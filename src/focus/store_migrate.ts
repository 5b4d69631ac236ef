/**
 * The start-up migration of focus's older follow-up index (one `["task_open_followup", project,
 * task]` entry per open follow-up) into blocks (`store_followups.ts`), so no reader keeps the
 * older shape. It runs before the server serves (`prepare` in `toolset.ts`), project by project,
 * and can stop anywhere: a project's blocks are staged under its block prefix while the project
 * record still says unpacked (no reader looks at them then), the record is switched in an atomic
 * that checks it is the version the blocks were built from, and only then are the project's old
 * entries deleted. Run again, it finds what is left and carries on; with nothing left it costs
 * one read.
 */

import { atomic, commitWithRetry } from "../kit/commit.ts";
import { deleteUnder } from "../kit/bulk_writes.ts";
import { AppError } from "../kit/errors.ts";
import { getAll, listAll, readKey } from "../kit/reads.ts";
import { type OpenFollowUp, packBlocks } from "./store_followups.ts";
import {
  followUpBlockKey,
  followUpBlockPrefix,
  legacyFollowUpPrefix,
  type Project,
  projectKey,
  type Task,
  taskKey,
} from "./store_keys.ts";

/** Blocks (each up to ~60 KB) staged per atomic, under KV's 800 KiB of values. */
const BLOCKS_PER_ATOMIC = 8;

/** Moves every project still on the older index into blocks; returns how many it moved. */
export async function migrateLegacyFollowUps(kv: Deno.Kv): Promise<number> {
  let moved = 0;
  for (;;) {
    const [first] = await listAll<string>(kv, { prefix: legacyFollowUpPrefix() }, { limit: 1 });
    if (first === undefined) return moved;
    const projectId = first.key[1];
    if (typeof projectId !== "string") {
      throw new AppError("invalid", `Unexpected key in the older follow-up index: ${first.key}`);
    }
    if (await migrateProject(kv, projectId)) moved++;
    await deleteUnder(kv, legacyFollowUpPrefix(projectId));
  }
}

/**
 * Builds `projectId`'s blocks from its older entries and switches its record to them. Returns
 * false when the record needs no switch (already packed, no follow-up open, or gone): the older
 * entries are then leftovers, which the caller deletes.
 */
async function migrateProject(kv: Deno.Kv, projectId: string): Promise<boolean> {
  return await commitWithRetry(async () => {
    const project = await readKey<Project>(kv, projectKey(projectId));
    const record = project.value;
    if (record === null || record.followUpsPacked === true || record.openFollowUps === 0) {
      return { value: false };
    }
    const open = await openFollowUpsOf(kv, projectId);
    const blocks = packBlocks(open);
    for (let at = 0; at < blocks.length; at += BLOCKS_PER_ATOMIC) {
      const op = atomic(kv).check(project);
      blocks.slice(at, at + BLOCKS_PER_ATOMIC).forEach((block, i) =>
        op.set(followUpBlockKey(projectId, at + i), block)
      );
      // A failed check means the project moved on: the retry builds the blocks again.
      if (!(await op.commit()).ok) return { op: atomic(kv).check(project), value: false };
    }
    const op = atomic(kv).check(project).set(
      projectKey(projectId),
      {
        ...record,
        followUpsPacked: true,
        // Derived data is rebuilt from the records: the count is what is open.
        openFollowUps: open.length,
      } satisfies Project,
    );
    // Blocks past the new ones (a run stopped on a different version) must not be read.
    for (const entry of await listAll(kv, { prefix: followUpBlockPrefix(projectId) })) {
      if ((entry.key.at(-1) as number) >= blocks.length) op.delete(entry.key);
    }
    return { op, value: true };
  });
}

/** The open follow-ups the older index names, oldest first (its keys end in ULID task ids). */
async function openFollowUpsOf(kv: Deno.Kv, projectId: string): Promise<OpenFollowUp[]> {
  const ids = await listAll<string>(kv, { prefix: legacyFollowUpPrefix(projectId) });
  const tasks = await getAll<Task>(kv, ids.map((e) => taskKey(projectId, e.value)));
  return tasks.flatMap(({ value: t }) =>
    t !== null && t.status === "open" && t.demoted
      ? [{ id: t.id, kind: t.kind, body: t.body, createdAt: t.createdAt }]
      : []
  );
}
