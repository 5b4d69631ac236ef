/**
 * Recording one thought: creating its sequence or continuing one, and writing the thought with
 * its indexes in one atomic that checks the sequence record, so concurrent writers get
 * consecutive history indexes.
 */

import { indexRecord } from "../kit/search_source.ts";
import { thoughtDoc } from "./search.ts";
import { atomic, commitWithRetry } from "../kit/commit.ts";
import type { ThinkingLimits } from "./settings.ts";
import { readKeys } from "../kit/reads.ts";
import {
  branchesNamed,
  learnBranches,
  namedBranch,
  type Placement,
  placeThought,
  type References,
  resolveReferences,
} from "./store_branches.ts";
import { fail, sequenceNotFound } from "./store_errors.ts";
import {
  branchKey,
  type BranchRecord,
  branchThoughtKey,
  hasBranchEntry,
  isSequenceId,
  MAIN_BRANCH,
  newSequenceId,
  sequenceKey,
  type SequenceRecord,
  thoughtKey,
  thoughtNumberKey,
  thoughtPartKey,
  type ThoughtRecord,
} from "./store_keys.ts";
import {
  type Clock,
  live,
  noRefresh,
  physicalExpiry,
  refreshExpiry,
  setOptions,
} from "./store_retention.ts";
import { chunksOf, titleOf } from "./store_text.ts";
import { type ThoughtInput, validateThought } from "./store_validate.ts";

/** Conditions that are accepted but worth telling the caller about. */
export type ThoughtFlag = "NEW_SEQUENCE" | "REOPENED" | "NUMBER_REUSED" | "TOTAL_RAISED";

/** What recording a thought did. */
export interface AddThoughtResult {
  sequenceId: string;
  /** History index of the new thought. */
  index: number;
  thoughtNumber: number;
  totalThoughts: number;
  nextThoughtNeeded: boolean;
  branchId: string;
  /** Branch ids of the sequence, in creation order. */
  branches: string[];
  thoughtHistoryLength: number;
  isRevision: boolean;
  revisesThought?: number;
  revisesIndex?: number;
  branchFromThought?: number;
  branchFromIndex?: number;
  /** The branch the new branch forked from, when this thought created or named a fork. */
  branchFromBranchId?: string;
  flags: ThoughtFlag[];
}

/** Options of `addThought`: a clock for tests. */
export interface AddThoughtOptions {
  clock?: Clock;
}

/** What one attempt starts from: the sequence as read, and what its commit checks. */
interface Loaded {
  /** The check on the sequence record: the version read, or absent when creating. */
  seqCheck: Deno.AtomicCheck;
  stored: SequenceRecord | null;
  /** Whether the thought number is taken on the branch. */
  numberReused: boolean;
  /** Branch records known so far. */
  branches: Map<string, BranchRecord>;
}

/**
 * Records one thought: creates the sequence when `sequenceId` is absent, validates branches and
 * revisions against what is stored, and writes the thought with its indexes in one atomic that
 * checks the sequence record, so concurrent writers get consecutive history indexes.
 */
export async function addThought(
  kv: Deno.Kv,
  limits: ThinkingLimits,
  input: ThoughtInput,
  options: AddThoughtOptions = {},
): Promise<AddThoughtResult> {
  const characters = validateThought(input, limits);
  const clock = options.clock ?? Date.now;
  const creating = input.sequenceId === undefined;
  if (!creating && !isSequenceId(input.sequenceId!)) sequenceNotFound(input.sequenceId!);
  const expiryMs = physicalExpiry(limits);
  const parts = chunksOf(input.thought);
  const refreshed = noRefresh();

  return await commitWithRetry<AddThoughtResult>(async () => {
    const now = clock();
    const iso = new Date(now).toISOString();
    const sequenceId = input.sequenceId ?? newSequenceId();
    const loaded = await load(kv, input, sequenceId, creating);

    const flags: ThoughtFlag[] = [];
    const seq = openSequence(loaded.stored, input, sequenceId, limits, expiryMs, now, flags);
    await learnBranches(kv, seq, input, loaded.branches);
    if (seq.thoughtCount >= limits.thoughtsPerSequenceMax) {
      fail(
        "SEQUENCE_FULL",
        `sequence "${sequenceId}" already holds ${seq.thoughtCount} thoughts, the most allowed; start a new sequence (omit sequenceId)`,
      );
    }
    const placement = placeThought(input, seq, loaded.branches, limits, iso);
    const refs = await resolveReferences(kv, sequenceId, input, placement);
    if (placement.newBranch === undefined && loaded.numberReused) flags.push("NUMBER_REUSED");
    const totalThoughts = Math.max(input.totalThoughts, input.thoughtNumber);
    if (totalThoughts !== input.totalThoughts) flags.push("TOTAL_RAISED");
    if (!creating) await refreshExpiry(kv, limits, seq, expiryMs, now, refreshed);

    const index = seq.thoughtCount + 1;
    const thought = thoughtRecord(input, refs, {
      index,
      totalThoughts,
      branchId: placement.branchId,
      createdAt: iso,
      characters,
      parts,
    });
    const newBranch = placement.newBranch === undefined
      ? undefined
      : { ...placement.newBranch, forkIndex: refs.branchFromIndex!, createdIndex: index };
    advance(seq, thought, newBranch, iso);
    if (newBranch !== undefined) loaded.branches.set(newBranch.id, newBranch);

    const op = writeOp(kv, loaded, seq, thought, parts, newBranch, expiryMs);
    return { op, value: resultOf(seq, thought, placement, refs, flags) };
  });
}

/**
 * What the write checks: the sequence record, whether the thought number is taken, and the
 * named branches, read in one `getMany`.
 */
async function load(
  kv: Deno.Kv,
  input: ThoughtInput,
  sequenceId: string,
  creating: boolean,
): Promise<Loaded> {
  const branches = new Map<string, BranchRecord>();
  if (creating) {
    return {
      seqCheck: { key: sequenceKey(sequenceId), versionstamp: null },
      stored: null,
      numberReused: false,
      branches,
    };
  }
  const branchId = namedBranch(input) ?? MAIN_BRANCH;
  const [seqEntry, numberEntry, ...found] = await readKeys<unknown[]>(kv, [
    sequenceKey(sequenceId),
    thoughtNumberKey(sequenceId, branchId, input.thoughtNumber),
    ...branchesNamed(input).map((id) => branchKey(sequenceId, id)),
  ]);
  for (const entry of found as Deno.KvEntryMaybe<BranchRecord>[]) {
    if (entry.value !== null) branches.set(entry.value.id, entry.value);
  }
  return {
    seqCheck: seqEntry,
    stored: seqEntry.value as SequenceRecord | null,
    numberReused: numberEntry.value !== null,
    branches,
  };
}

/**
 * The sequence record this write starts from: a new one when creating, else a copy of the live
 * stored one (refused when unknown, deleted or expired). Flags a new or reopened sequence.
 */
function openSequence(
  stored: SequenceRecord | null,
  input: ThoughtInput,
  sequenceId: string,
  limits: ThinkingLimits,
  expiryMs: number,
  now: number,
  flags: ThoughtFlag[],
): SequenceRecord {
  if (input.sequenceId === undefined) {
    flags.push("NEW_SEQUENCE");
    const iso = new Date(now).toISOString();
    return {
      id: sequenceId,
      title: titleOf(input.thought),
      createdAt: iso,
      updatedAt: iso,
      thoughtCount: 0,
      revisionCount: 0,
      completed: false,
      lastThoughtNumber: 0,
      totalThoughts: 0,
      mainThoughts: 0,
      branches: [],
      expiryMs,
      refreshedAt: now,
    };
  }
  const found = live(stored, limits, now);
  if (found === null) sequenceNotFound(sequenceId);
  if (found.completed) flags.push("REOPENED");
  return { ...found, branches: found.branches.map((b) => ({ ...b })) };
}

/** Where and when a thought is written, and how its text is stored. */
interface ThoughtPlace {
  index: number;
  totalThoughts: number;
  branchId: string;
  createdAt: string;
  characters: number;
  /** The text's chunks, or `undefined` when it is stored inline. */
  parts: string[] | undefined;
}

/** The record of the thought `input` describes, with its resolved references. */
function thoughtRecord(input: ThoughtInput, refs: References, at: ThoughtPlace): ThoughtRecord {
  const thought: ThoughtRecord = {
    index: at.index,
    thoughtNumber: input.thoughtNumber,
    totalThoughts: at.totalThoughts,
    nextThoughtNeeded: input.nextThoughtNeeded,
    branchId: at.branchId,
    isRevision: input.isRevision === true,
    createdAt: at.createdAt,
    characters: at.characters,
  };
  if (input.revisesThought !== undefined) {
    thought.revisesThought = input.revisesThought;
    thought.revisesIndex = refs.revisesIndex;
  }
  if (input.branchFromThought !== undefined) {
    thought.branchFromThought = input.branchFromThought;
    thought.branchFromIndex = refs.branchFromIndex;
  }
  if (input.needsMoreThoughts !== undefined) thought.needsMoreThoughts = input.needsMoreThoughts;
  if (at.parts === undefined) thought.text = input.thought;
  else thought.parts = at.parts.length;
  return thought;
}

/** Counts `thought` (and the branch it creates) into the sequence record. */
function advance(
  seq: SequenceRecord,
  thought: ThoughtRecord,
  newBranch: BranchRecord | undefined,
  updatedAt: string,
): void {
  seq.thoughtCount = thought.index;
  seq.updatedAt = updatedAt;
  seq.completed = !thought.nextThoughtNeeded;
  seq.lastThoughtNumber = thought.thoughtNumber;
  seq.totalThoughts = thought.totalThoughts;
  if (thought.isRevision) seq.revisionCount++;
  if (newBranch !== undefined) seq.branches.push({ id: newBranch.id, thoughts: 0 });
  if (thought.branchId === MAIN_BRANCH) seq.mainThoughts++;
  else seq.branches.find((b) => b.id === thought.branchId)!.thoughts++;
}

/**
 * The one atomic that writes the thought with its chunks, indexes, branch and sequence: three
 * keys for a thought on the main line of a sequence without branches (see `hasBranchEntry`).
 */
function writeOp(
  kv: Deno.Kv,
  loaded: Loaded,
  seq: SequenceRecord,
  thought: ThoughtRecord,
  parts: string[] | undefined,
  newBranch: BranchRecord | undefined,
  expiryMs: number,
): Deno.AtomicOperation {
  const { index, branchId } = thought;
  const numberKey = thoughtNumberKey(seq.id, branchId, thought.thoughtNumber);
  const expiry = setOptions(expiryMs);
  const op = atomic(kv)
    .check(loaded.seqCheck)
    .set(sequenceKey(seq.id), seq, expiry)
    .set(thoughtKey(seq.id, index), thought, expiry)
    .set(numberKey, index, expiry);
  if (hasBranchEntry(seq, branchId)) {
    op.set(branchThoughtKey(seq.id, branchId, index), index, expiry);
  }
  parts?.forEach((part, i) => op.set(thoughtPartKey(seq.id, index, i), part, expiry));
  if (newBranch !== undefined) op.set(branchKey(seq.id, newBranch.id), newBranch, expiry);
  indexRecord(
    op,
    thoughtDoc(seq, thought, (thought.text ?? "") + (parts?.join("") ?? ""), expiryMs),
  );
  return op;
}

/** What `addThought` reports about the thought it wrote. */
function resultOf(
  seq: SequenceRecord,
  thought: ThoughtRecord,
  placement: Placement,
  refs: References,
  flags: ThoughtFlag[],
): AddThoughtResult {
  return {
    sequenceId: seq.id,
    index: thought.index,
    thoughtNumber: thought.thoughtNumber,
    totalThoughts: thought.totalThoughts,
    nextThoughtNeeded: thought.nextThoughtNeeded,
    branchId: thought.branchId,
    branches: seq.branches.map((b) => b.id),
    thoughtHistoryLength: thought.index,
    isRevision: thought.isRevision,
    ...(refs.revisesIndex !== undefined &&
      { revisesThought: thought.revisesThought, revisesIndex: refs.revisesIndex }),
    ...(refs.branchFromIndex !== undefined &&
      { branchFromThought: thought.branchFromThought, branchFromIndex: refs.branchFromIndex }),
    ...(placement.parentId !== undefined && { branchFromBranchId: placement.parentId }),
    flags,
  };
}
