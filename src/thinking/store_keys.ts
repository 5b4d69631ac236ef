/**
 * The thinking toolset's key schema: one builder per key shape, sequence ids, and the records
 * stored under the keys. A sequence id is a capability (128 random bits); nothing lists sequences.
 */

import { randomToken } from "../kit/ids.ts";
import { bool, count, defineRecords, list, num, obj, opt, str } from "../kit/record_shapes.ts";

/** The name of the main line: every thought without a branch lives on it. */
export const MAIN_BRANCH = "main";

/** What the store keeps about one sequence; rewritten (and so checked) by every write to it. */
export interface SequenceRecord {
  id: string;
  /** The first line of the first thought, shortened. */
  title: string;
  createdAt: string;
  updatedAt: string;
  /** Thoughts stored, all branches together: the history length. */
  thoughtCount: number;
  revisionCount: number;
  /** True while the newest thought said `nextThoughtNeeded: false`. */
  completed: boolean;
  lastThoughtNumber: number;
  totalThoughts: number;
  /** Thoughts on the main line. */
  mainThoughts: number;
  /** Branches in creation order, with how many thoughts each holds. */
  branches: { id: string; thoughts: number }[];
  /** The `expireIn` every key of the sequence was last written with; 0 means none. */
  expiryMs: number;
  /** When (epoch ms) every key's expiry was last reset. */
  refreshedAt: number;
  /** Set by the first step of a delete; the sequence is gone for every reader from then on. */
  deleting?: boolean;
}

/** One stored thought. Its text is inline, or split into `parts` chunk keys when large. */
export interface ThoughtRecord {
  /** Position in the sequence's history, from 1, without gaps. */
  index: number;
  thoughtNumber: number;
  totalThoughts: number;
  nextThoughtNeeded: boolean;
  branchId: string;
  isRevision: boolean;
  revisesThought?: number;
  /** History index of the thought it revises. */
  revisesIndex?: number;
  branchFromThought?: number;
  /** History index of the fork point, when `branchFromThought` is set. */
  branchFromIndex?: number;
  needsMoreThoughts?: boolean;
  createdAt: string;
  /** Length of the text in characters (code points). */
  characters: number;
  text?: string;
  parts?: number;
}

/** A branch: where it forks from, and its ancestors nearest first (ending with "main"). */
export interface BranchRecord {
  id: string;
  parentId: string;
  forkThought: number;
  forkIndex: number;
  ancestors: string[];
  createdAt: string;
  /** History index of the branch's first thought. */
  createdIndex: number;
}

/** Prefix of every sequence record. */
export const SEQUENCES_PREFIX: Deno.KvKey = ["sequence"];
/** Key of a sequence record. */
export function sequenceKey(sequenceId: string): Deno.KvKey {
  return [...SEQUENCES_PREFIX, sequenceId];
}
/** Prefix of a sequence's thoughts, in history order (of every sequence's, without an id). */
export function thoughtPrefix(sequenceId?: string): Deno.KvKey {
  return sequenceId === undefined ? ["thought"] : ["thought", sequenceId];
}
/** Key of one thought by its history index. */
export function thoughtKey(sequenceId: string, index: number): Deno.KvKey {
  return [...thoughtPrefix(sequenceId), index];
}
/** Prefix of the text chunks of a sequence's large thoughts. */
export function thoughtPartPrefix(sequenceId: string): Deno.KvKey {
  return ["thought_part", sequenceId];
}
/** Key of one text chunk of a large thought. */
export function thoughtPartKey(sequenceId: string, index: number, part: number): Deno.KvKey {
  return [...thoughtPartPrefix(sequenceId), index, part];
}
/** Prefix of a sequence's branch records. */
export function branchPrefix(sequenceId: string): Deno.KvKey {
  return ["branch", sequenceId];
}
/** Key of one branch record. */
export function branchKey(sequenceId: string, branchId: string): Deno.KvKey {
  return [...branchPrefix(sequenceId), branchId];
}
/** Prefix of the index from (branch, thought number) to the newest thought with that number. */
export function thoughtNumberPrefix(sequenceId: string): Deno.KvKey {
  return ["thought_number", sequenceId];
}
/** Index entry: the history index of the newest thought with `thoughtNumber` on `branchId`. */
export function thoughtNumberKey(
  sequenceId: string,
  branchId: string,
  thoughtNumber: number,
): Deno.KvKey {
  return [...thoughtNumberPrefix(sequenceId), branchId, thoughtNumber];
}
/** Prefix of the per-branch index of thoughts (values are history indexes). */
export function branchThoughtPrefix(sequenceId: string, branchId?: string): Deno.KvKey {
  return branchId === undefined
    ? ["branch_thought", sequenceId]
    : ["branch_thought", sequenceId, branchId];
}
/** Index entry of one thought on its branch, in history order. */
export function branchThoughtKey(sequenceId: string, branchId: string, index: number): Deno.KvKey {
  return [...branchThoughtPrefix(sequenceId, branchId), index];
}

/**
 * Whether a thought on `branchId` of `seq` (as the write leaves it) gets a per-branch index
 * entry: always on a branch, and on the main line once the sequence has a branch. Until its first
 * branch every thought of a sequence is on the main line, so its thoughts are their own index
 * there; earlier versions wrote those entries too, and readers do not use them.
 */
export function hasBranchEntry(seq: SequenceRecord, branchId: string): boolean {
  return branchId !== MAIN_BRANCH || seq.branches.length > 0;
}

/** Every prefix that holds a sequence's keys besides its record. */
export function childPrefixes(sequenceId: string): Deno.KvKey[] {
  return [
    thoughtPrefix(sequenceId),
    thoughtPartPrefix(sequenceId),
    branchPrefix(sequenceId),
    thoughtNumberPrefix(sequenceId),
    branchThoughtPrefix(sequenceId),
  ];
}

/** Random bytes in a sequence id: 128 bits, base64url encoded. */
export const SEQUENCE_ID_BYTES = 16;
const SEQUENCE_ID = /^seq_[A-Za-z0-9_-]{22}$/;

/** A new unguessable sequence id: `seq_` and 128 random bits. */
export function newSequenceId(): string {
  return `seq_${randomToken(SEQUENCE_ID_BYTES)}`;
}

/** True when `id` has the shape of a sequence id (whether or not such a sequence exists). */
export function isSequenceId(id: string): boolean {
  return SEQUENCE_ID.test(id);
}

// The thinking families' shapes (only what the code relies on), checked by import: a damaged
// line is refused by number before anything is written.
defineRecords({
  sequence: {
    key: ["string"],
    value: obj({
      id: str,
      title: str,
      createdAt: str,
      updatedAt: str,
      thoughtCount: count,
      revisionCount: count,
      completed: bool,
      lastThoughtNumber: count,
      totalThoughts: count,
      mainThoughts: count,
      branches: list(obj({ id: str, thoughts: count })),
      expiryMs: count,
      refreshedAt: num,
    }),
  },
  thought: {
    key: ["string", "number"],
    value: obj({
      index: count,
      thoughtNumber: count,
      totalThoughts: count,
      nextThoughtNeeded: bool,
      branchId: str,
      isRevision: bool,
      createdAt: str,
      characters: count,
      text: opt(str),
      parts: opt(count),
    }),
  },
  thought_part: { key: ["string", "number", "number"], value: str },
  branch: {
    key: ["string", "string"],
    value: obj({
      id: str,
      parentId: str,
      forkThought: count,
      forkIndex: count,
      ancestors: list(str),
      createdAt: str,
      createdIndex: count,
    }),
  },
  thought_number: { key: ["string", "string", "number"], value: count },
  branch_thought: { key: ["string", "string", "number"], value: count },
});
