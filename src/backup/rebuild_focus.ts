/**
 * The focus toolset's derived data recomputed from its tasks (see rebuild.ts): each project's
 * count of open follow-ups and the index `get_state` lists them from, and the task → project
 * pointers. An export reads `project` records before their tasks and the index after them, so
 * under writes the three can disagree. An index that holds exactly the open follow-ups, in
 * order, is left as it is (its packing depends on history); any other is written anew.
 */

import { listEntries } from "../kit/reads.ts";
import {
  followUpBlockKey,
  followUpBlockPrefix,
  legacyFollowUpPrefix,
  type Project,
  projectKey,
  PROJECTS_PREFIX,
  type Task,
  TASK_PROJECT_PREFIX,
  taskPrefix,
  taskProjectKey,
} from "../focus/store_keys.ts";
import { lineOf, type OpenFollowUp, packBlocks } from "../focus/store_followups.ts";
import type { DerivedPlan, OwnedPrefix, Rebuilder } from "./rebuild_types.ts";

type Entries = DerivedPlan["entries"];

/** The focus toolset's rebuilder. */
export const focusRebuilder: Rebuilder = {
  name: "focus",
  async plan(kv) {
    const entries: Entries = [];
    const owned: OwnedPrefix[] = [{ prefix: TASK_PROJECT_PREFIX }];
    for await (const { value: task } of listEntries<Task>(kv, { prefix: taskPrefix() })) {
      entries.push({ key: taskProjectKey(task.id), value: task.projectId });
    }
    for await (const { value: project } of listEntries<Project>(kv, { prefix: PROJECTS_PREFIX })) {
      await planProject(kv, project, entries, owned);
    }
    return { owned, entries };
  },
};

async function planProject(
  kv: Deno.Kv,
  project: Project,
  entries: Entries,
  owned: OwnedPrefix[],
): Promise<void> {
  const open: OpenFollowUp[] = [];
  // The record was read before some of its tasks' writes: the latest of them touched it last.
  let updatedAt = project.updatedAt;
  for await (const { value: t } of listEntries<Task>(kv, { prefix: taskPrefix(project.id) })) {
    for (const at of [t.createdAt, t.doneAt]) {
      if (at !== undefined && at > updatedAt) updatedAt = at;
    }
    if (t.demoted && t.status === "open") {
      open.push({ id: t.id, kind: t.kind, body: t.body, createdAt: t.createdAt });
    }
  }
  const packed = project.followUpsPacked === true;
  const held = packed ? await blockLines(kv, project.id) : await legacyIds(kv, project.id);
  const wanted = packed ? open.map(lineOf) : open.map((f) => f.id);
  const indexRight = held.join("\n") === wanted.join("\n");
  if (indexRight && project.openFollowUps === open.length) return;
  const fixed: Project = { ...project, openFollowUps: open.length, updatedAt };
  if (!indexRight) {
    // Written anew, in blocks: the shape every project moves to.
    fixed.followUpsPacked = true;
    owned.push({ prefix: followUpBlockPrefix(project.id) });
    owned.push({ prefix: legacyFollowUpPrefix(project.id) });
    packBlocks(open).forEach((block, i) =>
      entries.push({ key: followUpBlockKey(project.id, i), value: block })
    );
  }
  entries.push({ key: projectKey(project.id), value: fixed });
}

async function blockLines(kv: Deno.Kv, projectId: string): Promise<string[]> {
  const lines: string[] = [];
  const blocks = listEntries<string>(kv, { prefix: followUpBlockPrefix(projectId) });
  for await (const { value } of blocks) lines.push(...value.split("\n"));
  return lines;
}

async function legacyIds(kv: Deno.Kv, projectId: string): Promise<string[]> {
  const ids: string[] = [];
  const entries = listEntries<string>(kv, { prefix: legacyFollowUpPrefix(projectId) });
  for await (const { value } of entries) ids.push(value);
  return ids;
}
