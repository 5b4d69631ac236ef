/**
 * The thinking toolset's derived data recomputed from its thoughts (see rebuild.ts). An export
 * reads `sequence` records before their `thought`s, so under writes a record can count fewer
 * thoughts than the file holds; the next thought would then be written over one of them. Here
 * each sequence's record is advanced over the thoughts past its count (as the write that stored
 * them advanced it), its missing branch records and per-branch index entries are added, and its
 * thought-number index is set to the newest thought of each number. Only thoughts numbered
 * 1, 2, … without a gap are counted: one after a gap is unreachable either way.
 */

import { listEntries } from "../kit/reads.ts";
import {
  branchKey,
  branchPrefix,
  type BranchRecord,
  branchThoughtKey,
  MAIN_BRANCH,
  sequenceKey,
  type SequenceRecord,
  SEQUENCES_PREFIX,
  thoughtNumberKey,
  thoughtNumberPrefix,
  thoughtPrefix,
  type ThoughtRecord,
} from "../thinking/store_keys.ts";
import type { DerivedPlan, OwnedPrefix, Rebuilder } from "./rebuild_types.ts";

type Entries = DerivedPlan["entries"];

/** The thinking toolset's rebuilder. */
export const thinkingRebuilder: Rebuilder = {
  name: "thinking",
  async plan(kv) {
    const entries: Entries = [];
    const owned: OwnedPrefix[] = [];
    for await (
      const { value: seq } of listEntries<SequenceRecord>(kv, { prefix: SEQUENCES_PREFIX })
    ) {
      if (seq.deleting) continue;
      owned.push({ prefix: thoughtNumberPrefix(seq.id) });
      await planSequence(kv, seq, entries);
    }
    return { owned, entries };
  },
};

async function planSequence(kv: Deno.Kv, seq: SequenceRecord, entries: Entries): Promise<void> {
  const branches = new Map<string, BranchRecord>();
  for await (const { value } of listEntries<BranchRecord>(kv, { prefix: branchPrefix(seq.id) })) {
    branches.set(value.id, value);
  }
  const thoughts: ThoughtRecord[] = [];
  for await (const { value } of listEntries<ThoughtRecord>(kv, { prefix: thoughtPrefix(seq.id) })) {
    if (value.index !== thoughts.length + 1) break;
    thoughts.push(value);
  }
  const advanced = structuredClone(seq);
  const newest = new Map<string, { branch: string; n: number; index: number }>();
  for (const t of thoughts) {
    if (t.branchId !== MAIN_BRANCH && !branches.has(t.branchId)) {
      const made = branchOf(t, thoughts, branches);
      branches.set(made.id, made);
      entries.push({ key: branchKey(seq.id, made.id), value: made });
    }
    if (t.index > seq.thoughtCount) advance(advanced, t);
    const branched = [...branches.values()].some((b) => b.createdIndex <= t.index);
    if (t.branchId !== MAIN_BRANCH || branched) {
      entries.push({ key: branchThoughtKey(seq.id, t.branchId, t.index), value: t.index });
    }
    const id = JSON.stringify([t.branchId, t.thoughtNumber]);
    newest.set(id, { branch: t.branchId, n: t.thoughtNumber, index: t.index });
  }
  for (const { branch, n, index } of newest.values()) {
    entries.push({ key: thoughtNumberKey(seq.id, branch, n), value: index });
  }
  if (advanced.thoughtCount !== seq.thoughtCount) {
    entries.push({ key: sequenceKey(seq.id), value: advanced });
  }
}

/** What the write of `t` did to its sequence's record (store_write.ts's `advance`). */
function advance(seq: SequenceRecord, t: ThoughtRecord): void {
  seq.thoughtCount = t.index;
  seq.updatedAt = t.createdAt;
  seq.completed = !t.nextThoughtNeeded;
  seq.lastThoughtNumber = t.thoughtNumber;
  seq.totalThoughts = t.totalThoughts;
  if (t.isRevision) seq.revisionCount++;
  if (t.branchId === MAIN_BRANCH) {
    seq.mainThoughts++;
    return;
  }
  let branch = seq.branches.find((b) => b.id === t.branchId);
  if (branch === undefined) seq.branches.push(branch = { id: t.branchId, thoughts: 0 });
  branch.thoughts++;
}

/**
 * The record of the branch `t` opened, which the export lacks (it was created after the export
 * read the branches). Its parent is taken to be the branch of the thought it forks from: a fork
 * named from a branch whose ancestor holds that thought is recorded from the ancestor.
 */
function branchOf(
  t: ThoughtRecord,
  thoughts: ThoughtRecord[],
  branches: Map<string, BranchRecord>,
): BranchRecord {
  const fork = t.branchFromIndex === undefined ? undefined : thoughts[t.branchFromIndex - 1];
  const parentId = fork?.branchId ?? MAIN_BRANCH;
  const parent = branches.get(parentId);
  return {
    id: t.branchId,
    parentId,
    forkThought: t.branchFromThought ?? fork?.thoughtNumber ?? 0,
    forkIndex: t.branchFromIndex ?? 0,
    ancestors: parent === undefined ? [MAIN_BRANCH] : [parentId, ...parent.ancestors],
    createdAt: t.createdAt,
    createdIndex: t.index,
  };
}
