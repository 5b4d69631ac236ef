/**
 * The thinking toolset's records in KV: sequences of thoughts with their branches and
 * revisions. A sequence id is a capability (128 random bits); nothing lists sequences.
 */

import type { ThinkingLimits } from "../config.ts";
import {
  commitWithRetry,
  deleteUnder,
  getAll,
  randomToken,
  resetExpiry,
  StoreError,
  type StoreErrorKind,
} from "./kv.ts";

/** The name of the main line: every thought without a branch lives on it. */
export const MAIN_BRANCH = "main";

/** Every failure of this toolset, with the store error kind it maps to. */
export const THINKING_ERRORS = {
  /** The sequence id is unknown, malformed, deleted or expired. */
  SEQUENCE_NOT_FOUND: "not_found",
  /** `branchFromThought` names no thought on the parent branch or its ancestors. */
  BRANCH_POINT_NOT_FOUND: "not_found",
  /** An existing branch was given a different fork point or parent. */
  BRANCH_FORK_MISMATCH: "invalid",
  /** `branchFromThought` came without a `branchId`. */
  BRANCH_ID_REQUIRED: "invalid",
  /** `branchFromBranchId` came without `branchFromThought`. */
  BRANCH_POINT_REQUIRED: "invalid",
  /** A `branchId` (or `branchFromBranchId`) names no branch of this sequence. */
  BRANCH_NOT_FOUND: "not_found",
  /** A branch id is empty, too long, has control characters, or tries to create "main". */
  BRANCH_ID_INVALID: "invalid",
  /** `revisesThought` without `isRevision: true`, or `isRevision: true` without it. */
  REVISION_FLAGS_MISMATCH: "invalid",
  /** `revisesThought` names no thought on this branch or its ancestors. */
  REVISION_TARGET_NOT_FOUND: "not_found",
  /** The thought is empty or whitespace only. */
  THOUGHT_EMPTY: "invalid",
  /** The thought is longer than the limit. */
  THOUGHT_TOO_LONG: "too_large",
  /** A number is outside 1–numberMax or not whole. */
  NUMBER_OUT_OF_RANGE: "invalid",
  /** The sequence holds the most thoughts allowed. */
  SEQUENCE_FULL: "full",
  /** The sequence holds the most branches allowed. */
  TOO_MANY_BRANCHES: "full",
  /** A history cursor that is malformed or was made for another order or branch. */
  INVALID_CURSOR: "invalid",
  /** A history page size or character budget outside its range. */
  INVALID_PAGE: "invalid",
  /** `delete_thought_sequence` without `confirm: true`. */
  CONFIRM_REQUIRED: "invalid",
} as const satisfies Record<string, StoreErrorKind>;

/** The name of one failure; it starts the error message so clients can tell failures apart. */
export type ThinkingErrorCode = keyof typeof THINKING_ERRORS;

/** A `StoreError` whose message starts with its code: `SEQUENCE_NOT_FOUND: …`. */
export class ThinkingError extends StoreError {
  /** The named failure. */
  readonly code: ThinkingErrorCode;
  constructor(code: ThinkingErrorCode, message: string) {
    super(THINKING_ERRORS[code], `${code}: ${message}`);
    this.name = "ThinkingError";
    this.code = code;
  }
}

function fail(code: ThinkingErrorCode, message: string): never {
  throw new ThinkingError(code, message);
}

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

/** Key of a sequence record. */
export function sequenceKey(sequenceId: string): Deno.KvKey {
  return ["sequence", sequenceId];
}
/** Prefix of a sequence's thoughts, in history order. */
export function thoughtPrefix(sequenceId: string): Deno.KvKey {
  return ["thought", sequenceId];
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

/** Every prefix that holds a sequence's keys besides its record. */
function childPrefixes(sequenceId: string): Deno.KvKey[] {
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

/** The input of `sequentialthinking`, already typed (numbers and booleans parsed). */
export interface ThoughtInput {
  thought: string;
  nextThoughtNeeded: boolean;
  thoughtNumber: number;
  totalThoughts: number;
  isRevision?: boolean;
  revisesThought?: number;
  branchFromThought?: number;
  branchId?: string;
  needsMoreThoughts?: boolean;
  sequenceId?: string;
  branchFromBranchId?: string;
}

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

/** Where a sequence's clock comes from; tests pass a fake one. */
export type Clock = () => number;

/** Characters (code points) in `text`. */
function characterCount(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

function checkNumber(name: string, value: number | undefined, limits: ThinkingLimits): void {
  if (value === undefined) return;
  if (!Number.isInteger(value) || value < 1 || value > limits.numberMax) {
    fail(
      "NUMBER_OUT_OF_RANGE",
      `${name} must be a whole number from 1 to ${limits.numberMax}, got ${value}`,
    );
  }
}

/** Checks a branch id: 1–max characters, no control characters. */
function checkBranchId(name: string, value: string, limits: ThinkingLimits): void {
  const length = characterCount(value);
  if (length < 1 || length > limits.branchIdMax || /\p{Cc}/u.test(value) || value.trim() === "") {
    fail(
      "BRANCH_ID_INVALID",
      `${name} must be 1–${limits.branchIdMax} characters without control characters, got ${
        length === 0 ? "an empty string" : `${length} characters`
      }`,
    );
  }
}

/**
 * Checks everything that needs no read: text, numbers, ids and how the flags combine.
 * Returns the thought's length in characters.
 */
export function validateThought(input: ThoughtInput, limits: ThinkingLimits): number {
  if (input.thought.trim() === "") {
    fail("THOUGHT_EMPTY", "thought must contain the thinking step; it is empty");
  }
  const characters = characterCount(input.thought);
  if (characters > limits.thoughtMax) {
    fail(
      "THOUGHT_TOO_LONG",
      `thought is ${characters} characters; at most ${limits.thoughtMax} are allowed. Split it into two thoughts`,
    );
  }
  checkNumber("thoughtNumber", input.thoughtNumber, limits);
  checkNumber("totalThoughts", input.totalThoughts, limits);
  checkNumber("revisesThought", input.revisesThought, limits);
  checkNumber("branchFromThought", input.branchFromThought, limits);
  if (input.revisesThought !== undefined && input.isRevision !== true) {
    fail(
      "REVISION_FLAGS_MISMATCH",
      `revisesThought (${input.revisesThought}) was given without isRevision: true; send both to revise a thought, or neither`,
    );
  }
  if (input.isRevision === true && input.revisesThought === undefined) {
    fail(
      "REVISION_FLAGS_MISMATCH",
      "isRevision is true but revisesThought is missing; name the thought number being revised",
    );
  }
  if (input.branchId !== undefined) checkBranchId("branchId", input.branchId, limits);
  if (input.branchFromBranchId !== undefined) {
    checkBranchId("branchFromBranchId", input.branchFromBranchId, limits);
  }
  if (input.branchFromThought !== undefined && input.branchId === undefined) {
    fail(
      "BRANCH_ID_REQUIRED",
      `branchFromThought (${input.branchFromThought}) needs a branchId naming the branch it starts or continues`,
    );
  }
  if (input.branchFromThought !== undefined && input.branchId === MAIN_BRANCH) {
    fail(
      "BRANCH_ID_INVALID",
      `"${MAIN_BRANCH}" is the main line and cannot be forked into; choose another branchId`,
    );
  }
  if (input.branchFromBranchId !== undefined && input.branchFromThought === undefined) {
    fail(
      "BRANCH_POINT_REQUIRED",
      "branchFromBranchId names the branch a fork starts from; it needs branchFromThought too",
    );
  }
  return characters;
}

function notFound(sequenceId: string): never {
  fail(
    "SEQUENCE_NOT_FOUND",
    `no sequence has id "${sequenceId}" (it may have been deleted, or expired after a period without writes). Omit sequenceId to start a new sequence`,
  );
}

/**
 * How long a sequence lives after its last write, in ms (0: until deleted): the configured
 * retention, or the one its keys were last written under when that is shorter, since KV drops
 * those keys on that schedule whatever the configuration says now.
 */
export function retentionOf(seq: SequenceRecord, limits: ThinkingLimits): number {
  const written = seq.expiryMs / 2;
  if (written <= 0) return limits.retentionMs;
  if (limits.retentionMs <= 0) return written;
  return Math.min(written, limits.retentionMs);
}

/** True once a sequence has outlived its retention without a write (KV's own expiry runs late). */
export function isExpired(seq: SequenceRecord, limits: ThinkingLimits, now: number): boolean {
  const retention = retentionOf(seq, limits);
  return retention > 0 && now - Date.parse(seq.updatedAt) > retention;
}

/** The live sequence record, or `null` when unknown, being deleted or expired. */
function live(
  seq: SequenceRecord | null,
  limits: ThinkingLimits,
  now: number,
): SequenceRecord | null {
  if (seq === null || seq.deleting || isExpired(seq, limits, now)) return null;
  return seq;
}

/**
 * The `expireIn` keys are written with: twice the retention, so a key outlives its sequence's
 * logical expiry (`retentionOf` relies on this factor).
 */
function physicalExpiry(limits: ThinkingLimits): number {
  return limits.retentionMs > 0 ? 2 * limits.retentionMs : 0;
}

function setOptions(expiryMs: number): { expireIn: number } | undefined {
  return expiryMs > 0 ? { expireIn: expiryMs } : undefined;
}

/** Code units per text chunk: at most 40,000 bytes even when every unit takes two. */
const PART_UNITS = 20_000;
/** Texts up to this many code units are stored inline in the thought record. */
const INLINE_UNITS = 24_000;

/** Splits `text` into chunks of at most `PART_UNITS` code units, never inside a surrogate pair. */
export function splitText(text: string): string[] {
  const parts: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + PART_UNITS);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
    parts.push(text.slice(start, end));
    start = end;
  }
  return parts;
}

function titleOf(text: string): string {
  const line = text.trim().split(/\r?\n|\u2028|\u2029/, 1)[0].trim();
  const chars = [...line];
  return chars.length > 80 ? chars.slice(0, 79).join("") + "…" : line;
}

/** The state of one sequence as this session last committed it. */
export interface CachedSequence {
  versionstamp: string;
  seq: SequenceRecord;
  /** Branch records already read or written (they never change once created). */
  branches: Map<string, BranchRecord>;
}

/**
 * Remembers the sequence a session wrote last, as of its own commit, so the session's next
 * thought needs no read: the commit checks the cached versionstamp, and when another writer got
 * there first the check fails and the retry reads afresh.
 */
export class SequenceCache {
  #state: CachedSequence | undefined;
  /** Hands out (and forgets) the cached state of `sequenceId`, if that is the one cached. */
  take(sequenceId: string): CachedSequence | undefined {
    const state = this.#state;
    this.#state = undefined;
    return state?.seq.id === sequenceId ? state : undefined;
  }
  /** Keeps the state a commit just produced. */
  put(state: CachedSequence): void {
    this.#state = state;
  }
}

/** Options of `addThought`: a clock for tests, and the session's cache. */
export interface AddThoughtOptions {
  clock?: Clock;
  cache?: SequenceCache;
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
  if (!creating && !SEQUENCE_ID.test(input.sequenceId!)) notFound(input.sequenceId!);
  const expiryMs = physicalExpiry(limits);
  const parts = input.thought.length > INLINE_UNITS ? splitText(input.thought) : undefined;
  const named = input.branchId !== undefined && input.branchId !== MAIN_BRANCH
    ? input.branchId
    : undefined;
  const branchId = named ?? MAIN_BRANCH;
  const parentArg = input.branchFromBranchId;
  /** The last expiry reset this call made, so a retried attempt does not repeat it. */
  const refreshed = { at: 0, expiryMs: -1 };

  return await commitWithRetry<AddThoughtResult>(async () => {
    const now = clock();
    const sequenceId = input.sequenceId ?? newSequenceId();
    const numberKey = thoughtNumberKey(sequenceId, branchId, input.thoughtNumber);
    // The sequence as this session last committed it, or else as stored now.
    const cached = creating ? undefined : options.cache?.take(sequenceId);
    const branches = new Map(cached?.branches);
    let seqCheck: Deno.AtomicCheck = { key: sequenceKey(sequenceId), versionstamp: null };
    let stored: SequenceRecord | null = null;
    /** Unknown when cached: the commit then checks that the number is unused. */
    let numberReused: boolean | undefined = creating ? false : undefined;
    if (cached !== undefined) {
      seqCheck = { key: sequenceKey(sequenceId), versionstamp: cached.versionstamp };
      stored = cached.seq;
    } else if (!creating) {
      const ids = [named, parentArg].filter((id): id is string =>
        id !== undefined && id !== MAIN_BRANCH
      );
      const [seqEntry, numberEntry, ...found] = await kv.getMany<unknown[]>([
        sequenceKey(sequenceId),
        numberKey,
        ...ids.map((id) => branchKey(sequenceId, id)),
      ]);
      seqCheck = seqEntry;
      stored = seqEntry.value as SequenceRecord | null;
      numberReused = numberEntry.value !== null;
      for (const entry of found as Deno.KvEntryMaybe<BranchRecord>[]) {
        if (entry.value !== null) branches.set(entry.value.id, entry.value);
      }
    }

    const flags: ThoughtFlag[] = [];
    const iso = new Date(now).toISOString();
    let seq: SequenceRecord;
    if (creating) {
      flags.push("NEW_SEQUENCE");
      seq = {
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
    } else {
      const found = live(stored, limits, now);
      if (found === null) notFound(sequenceId);
      seq = { ...found, branches: found.branches.map((b) => ({ ...b })) };
      if (seq.completed) flags.push("REOPENED");
    }
    // Branch records this thought names that the sequence has and this call does not know yet.
    // They never change once created, and the sequence check covers their creation.
    const missing = [named, parentArg].filter((id): id is string =>
      id !== undefined && id !== MAIN_BRANCH && !branches.has(id) &&
      seq.branches.some((b) => b.id === id)
    );
    if (missing.length > 0) {
      const got = await kv.getMany<BranchRecord[]>(missing.map((id) => branchKey(sequenceId, id)));
      for (const entry of got) if (entry.value !== null) branches.set(entry.value.id, entry.value);
    }
    const existing = named === undefined ? null : branches.get(named) ?? null;
    const parentRecord = parentArg === undefined ? null : branches.get(parentArg) ?? null;
    if (seq.thoughtCount >= limits.thoughtsPerSequenceMax) {
      fail(
        "SEQUENCE_FULL",
        `sequence "${sequenceId}" already holds ${seq.thoughtCount} thoughts, the most allowed; start a new sequence (omit sequenceId)`,
      );
    }

    // Which branch the thought goes on, and the lines its references resolve through.
    let lineage: string[] = [MAIN_BRANCH];
    let newBranch: BranchRecord | undefined;
    let forkLineage: string[] | undefined;
    let parentId: string | undefined;
    if (named !== undefined) {
      if (existing !== null) {
        const forkDiffers = input.branchFromThought !== undefined &&
          input.branchFromThought !== existing.forkThought;
        const parentDiffers = parentArg !== undefined && parentArg !== existing.parentId;
        if (forkDiffers || parentDiffers) {
          fail(
            "BRANCH_FORK_MISMATCH",
            `branch "${named}" already forks from thought ${existing.forkThought} on "${existing.parentId}"; got thought ${
              input.branchFromThought ?? existing.forkThought
            } on "${parentArg ?? existing.parentId}". Use a new branchId for a different fork`,
          );
        }
        lineage = [named, ...existing.ancestors];
        if (input.branchFromThought !== undefined) parentId = existing.parentId;
      } else {
        if (input.branchFromThought === undefined) {
          fail(
            "BRANCH_NOT_FOUND",
            `sequence "${sequenceId}" has no branch "${named}"; to start it, also send branchFromThought (and branchFromBranchId when forking from another branch)`,
          );
        }
        parentId = parentArg ?? MAIN_BRANCH;
        let parentAncestors: string[] = [];
        if (parentId !== MAIN_BRANCH) {
          const parent = parentRecord;
          if (parent === null) {
            fail(
              "BRANCH_NOT_FOUND",
              `branchFromBranchId "${parentId}" names no branch of sequence "${sequenceId}"; omit it to fork from the main line`,
            );
          }
          parentAncestors = parent.ancestors;
        }
        if (seq.branches.length >= limits.branchesMax) {
          fail(
            "TOO_MANY_BRANCHES",
            `sequence "${sequenceId}" already has ${seq.branches.length} branches, the most allowed; continue an existing branch`,
          );
        }
        forkLineage = parentId === MAIN_BRANCH ? [MAIN_BRANCH] : [parentId, ...parentAncestors];
        lineage = forkLineage;
        newBranch = {
          id: named,
          parentId,
          forkThought: input.branchFromThought,
          forkIndex: 0,
          ancestors: forkLineage,
          createdAt: iso,
          createdIndex: 0,
        };
      }
    }

    // Resolve the fork point and the revision target, nearest branch first.
    const wanted: { line: string; n: number; what: "fork" | "revision" }[] = [];
    if (forkLineage !== undefined) {
      for (const line of forkLineage) {
        wanted.push({ line, n: input.branchFromThought!, what: "fork" });
      }
    }
    if (input.revisesThought !== undefined) {
      for (const line of lineage) wanted.push({ line, n: input.revisesThought, what: "revision" });
    }
    const found = wanted.length === 0
      ? []
      : await getAll<number>(kv, wanted.map((w) => thoughtNumberKey(sequenceId, w.line, w.n)));
    const resolve = (what: "fork" | "revision") => {
      const at = wanted.findIndex((w, i) => w.what === what && found[i].value !== null);
      return at < 0 ? undefined : found[at].value!;
    };
    let branchFromIndex: number | undefined;
    if (newBranch !== undefined) {
      branchFromIndex = resolve("fork");
      if (branchFromIndex === undefined) {
        fail(
          "BRANCH_POINT_NOT_FOUND",
          `branchFromThought ${input.branchFromThought} names no thought on "${newBranch.parentId}"${
            newBranch.ancestors.length > 1 ? " or its ancestors" : ""
          } in sequence "${sequenceId}"`,
        );
      }
      newBranch.forkIndex = branchFromIndex;
    } else if (named !== undefined && input.branchFromThought !== undefined) {
      branchFromIndex = existing!.forkIndex;
    }
    let revisesIndex: number | undefined;
    if (input.revisesThought !== undefined) {
      revisesIndex = resolve("revision");
      if (revisesIndex === undefined) {
        fail(
          "REVISION_TARGET_NOT_FOUND",
          `revisesThought ${input.revisesThought} names no thought on "${branchId}"${
            lineage.length > 1 || lineage[0] !== branchId ? " or its ancestors" : ""
          } in sequence "${sequenceId}"`,
        );
      }
    }
    if (newBranch === undefined && numberReused) flags.push("NUMBER_REUSED");
    const totalThoughts = Math.max(input.totalThoughts, input.thoughtNumber);
    if (totalThoughts !== input.totalThoughts) flags.push("TOTAL_RAISED");

    // Expiry: when the retention changed, or the margin since the last reset is used up,
    // every key of the sequence gets a fresh expiry before this thought is written.
    if (!creating) {
      let base = refreshed.expiryMs === expiryMs ? refreshed.at : -1;
      if (seq.expiryMs === expiryMs) base = Math.max(base, seq.refreshedAt);
      if (base < 0 || (expiryMs > 0 && now - base > limits.retentionMs)) {
        await resetExpiry(kv, childPrefixes(sequenceId), expiryMs > 0 ? expiryMs : undefined);
        refreshed.at = base = now;
        refreshed.expiryMs = expiryMs;
      }
      seq.refreshedAt = base;
      seq.expiryMs = expiryMs;
    }

    const index = seq.thoughtCount + 1;
    const thought: ThoughtRecord = {
      index,
      thoughtNumber: input.thoughtNumber,
      totalThoughts,
      nextThoughtNeeded: input.nextThoughtNeeded,
      branchId,
      isRevision: input.isRevision === true,
      createdAt: iso,
      characters,
    };
    if (input.revisesThought !== undefined) {
      thought.revisesThought = input.revisesThought;
      thought.revisesIndex = revisesIndex;
    }
    if (input.branchFromThought !== undefined) {
      thought.branchFromThought = input.branchFromThought;
      thought.branchFromIndex = branchFromIndex;
    }
    if (input.needsMoreThoughts !== undefined) thought.needsMoreThoughts = input.needsMoreThoughts;
    if (parts === undefined) thought.text = input.thought;
    else thought.parts = parts.length;

    seq.thoughtCount = index;
    seq.updatedAt = iso;
    seq.completed = !input.nextThoughtNeeded;
    seq.lastThoughtNumber = input.thoughtNumber;
    seq.totalThoughts = totalThoughts;
    if (thought.isRevision) seq.revisionCount++;
    if (newBranch !== undefined) {
      newBranch.createdIndex = index;
      seq.branches.push({ id: newBranch.id, thoughts: 0 });
    }
    if (branchId === MAIN_BRANCH) seq.mainThoughts++;
    else seq.branches.find((b) => b.id === branchId)!.thoughts++;

    const expiry = setOptions(expiryMs);
    const op = kv.atomic()
      .check(seqCheck)
      .set(sequenceKey(sequenceId), seq, expiry)
      .set(thoughtKey(sequenceId, index), thought, expiry)
      .set(numberKey, index, expiry)
      .set(branchThoughtKey(sequenceId, branchId, index), index, expiry);
    // Assumed unused without a read: if it is used, this fails and the retry reads.
    if (numberReused === undefined && newBranch === undefined) {
      op.check({ key: numberKey, versionstamp: null });
    }
    parts?.forEach((part, i) => op.set(thoughtPartKey(sequenceId, index, i), part, expiry));
    if (newBranch !== undefined) {
      op.set(branchKey(sequenceId, newBranch.id), newBranch, expiry);
      branches.set(newBranch.id, newBranch);
    }

    return {
      op,
      committed: (versionstamp) => options.cache?.put({ versionstamp, seq, branches }),
      value: {
        sequenceId,
        index,
        thoughtNumber: input.thoughtNumber,
        totalThoughts,
        nextThoughtNeeded: input.nextThoughtNeeded,
        branchId,
        branches: seq.branches.map((b) => b.id),
        thoughtHistoryLength: index,
        isRevision: thought.isRevision,
        ...(revisesIndex !== undefined && { revisesThought: input.revisesThought, revisesIndex }),
        ...(branchFromIndex !== undefined &&
          { branchFromThought: input.branchFromThought, branchFromIndex }),
        ...(parentId !== undefined && { branchFromBranchId: parentId }),
        flags,
      },
    };
  });
}

/** The live sequence record, or `null` when unknown, malformed, being deleted or expired. */
export async function getSequence(
  kv: Deno.Kv,
  limits: ThinkingLimits,
  sequenceId: string,
  clock: Clock = Date.now,
): Promise<SequenceRecord | null> {
  if (!SEQUENCE_ID.test(sequenceId)) return null;
  const entry = await kv.get<SequenceRecord>(sequenceKey(sequenceId));
  return live(entry.value, limits, clock());
}

/** A branch as history shows it. */
export interface BranchSummary {
  branchId: string;
  parentBranchId: string;
  branchFromThought: number;
  /** History index of the fork point. */
  branchFromIndex: number;
  /** History index of the branch's first thought. */
  firstIndex: number;
  thoughts: number;
  createdAt: string;
}

/** A sequence as history shows it. */
export interface SequenceSummary {
  sequenceId: string;
  title: string;
  createdAt: string;
  updatedAt: string;
  completed: boolean;
  thoughtHistoryLength: number;
  mainThoughts: number;
  revisionCount: number;
  lastThoughtNumber: number;
  totalThoughts: number;
  branches: BranchSummary[];
  /** When the sequence expires without further writes, or `null` when kept until deleted. */
  expiresAt: string | null;
}

/** One thought as history shows it, with its whole text (or the start of it, when truncated). */
export interface HistoryThought extends Omit<ThoughtRecord, "text" | "parts"> {
  thought: string;
  /** True when only the first `maxCharacters` characters are shown. */
  truncated: boolean;
}

/** Options of one history page. */
export interface HistoryOptions {
  limit?: number;
  cursor?: string;
  order?: "asc" | "desc";
  /** Only the thoughts recorded on this branch ("main" for the main line). */
  branchId?: string;
  maxCharacters?: number;
}

/** One page of a sequence's history. */
export interface HistoryPage {
  sequence: SequenceSummary;
  thoughts: HistoryThought[];
  order: "asc" | "desc";
  branchId: string | null;
  /** Opaque cursor of the next page, or `null` at the end. */
  nextCursor: string | null;
}

interface CursorState {
  v: 1;
  o: "asc" | "desc";
  b: string | null;
  i: number;
}

function encodeCursor(state: CursorState): string {
  const bytes = new TextEncoder().encode(JSON.stringify(state));
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_")
    .replaceAll("=", "");
}

function decodeCursor(cursor: string, order: "asc" | "desc", branch: string | null): number {
  const bad = (why: string): never =>
    fail("INVALID_CURSOR", `cursor ${why}; pass the nextCursor of the previous page unchanged`);
  let state: CursorState;
  try {
    const text = atob(cursor.replaceAll("-", "+").replaceAll("_", "/"));
    state = JSON.parse(new TextDecoder().decode(Uint8Array.from(text, (c) => c.charCodeAt(0))));
  } catch {
    return bad("is not one this server made");
  }
  if (state?.v !== 1 || !Number.isInteger(state.i) || state.i < 0) {
    return bad("is not one this server made");
  }
  if (state.o !== order) {
    return bad(`was made for order "${state.o}", not "${order}"; keep the same order`);
  }
  if (state.b !== branch) {
    return bad(
      `was made for ${state.b === null ? "the whole sequence" : `branch "${state.b}"`}, not ${
        branch === null ? "the whole sequence" : `branch "${branch}"`
      }; keep the same branchId`,
    );
  }
  return state.i;
}

function summarize(
  seq: SequenceRecord,
  branches: BranchRecord[],
  limits: ThinkingLimits,
): SequenceSummary {
  const counts = new Map(seq.branches.map((b) => [b.id, b.thoughts]));
  const order = new Map(seq.branches.map((b, i) => [b.id, i]));
  return {
    sequenceId: seq.id,
    title: seq.title,
    createdAt: seq.createdAt,
    updatedAt: seq.updatedAt,
    completed: seq.completed,
    thoughtHistoryLength: seq.thoughtCount,
    mainThoughts: seq.mainThoughts,
    revisionCount: seq.revisionCount,
    lastThoughtNumber: seq.lastThoughtNumber,
    totalThoughts: seq.totalThoughts,
    branches: branches
      .filter((b) => order.has(b.id))
      .sort((a, b) => order.get(a.id)! - order.get(b.id)!)
      .map((b) => ({
        branchId: b.id,
        parentBranchId: b.parentId,
        branchFromThought: b.forkThought,
        branchFromIndex: b.forkIndex,
        firstIndex: b.createdIndex,
        thoughts: counts.get(b.id) ?? 0,
        createdAt: b.createdAt,
      })),
    expiresAt: retentionOf(seq, limits) > 0
      ? new Date(Date.parse(seq.updatedAt) + retentionOf(seq, limits)).toISOString()
      : null,
  };
}

function checkPage(name: string, value: number, max: number): void {
  if (!Number.isInteger(value) || value < 1 || value > max) {
    fail("INVALID_PAGE", `${name} must be a whole number from 1 to ${max}, got ${value}`);
  }
}

/**
 * One page of a sequence's thoughts in history order (or newest first), within `limit`
 * thoughts and `maxCharacters` of thought text. A page always holds at least one thought when
 * any remain: a thought longer than the budget comes alone, truncated to it.
 */
export async function getHistory(
  kv: Deno.Kv,
  limits: ThinkingLimits,
  sequenceId: string,
  options: HistoryOptions = {},
  clock: Clock = Date.now,
): Promise<HistoryPage> {
  const limit = options.limit ?? limits.historyPageDefault;
  const maxCharacters = options.maxCharacters ?? limits.historyCharactersDefault;
  checkPage("limit", limit, limits.historyPageMax);
  checkPage("maxCharacters", maxCharacters, limits.historyCharactersMax);
  const order = options.order ?? "asc";
  const branch = options.branchId ?? null;
  const after = options.cursor ? decodeCursor(options.cursor, order, branch) : undefined;

  const seq = await getSequence(kv, limits, sequenceId, clock);
  if (seq === null) notFound(sequenceId);
  if (branch !== null && branch !== MAIN_BRANCH && !seq.branches.some((b) => b.id === branch)) {
    fail(
      "BRANCH_NOT_FOUND",
      `sequence "${sequenceId}" has no branch "${branch}"; its branches: ${
        [MAIN_BRANCH, ...seq.branches.map((b) => b.id)].join(", ")
      }`,
    );
  }
  const prefix = branch === null
    ? thoughtPrefix(sequenceId)
    : branchThoughtPrefix(sequenceId, branch);
  const selector: Deno.KvListSelector = after === undefined
    ? { prefix }
    : order === "asc"
    ? { prefix, start: [...prefix, after + 1] }
    : { prefix, end: [...prefix, after] };
  const [branchRecords, listed] = await Promise.all([
    Array.fromAsync(kv.list<BranchRecord>({ prefix: branchPrefix(sequenceId) }), (e) => e.value),
    Array.fromAsync(
      kv.list<ThoughtRecord | number>(selector, { limit: limit + 1, reverse: order === "desc" }),
    ),
  ]);
  const records = branch === null
    ? listed.map((e) => e.value as ThoughtRecord)
    : (await getAll<ThoughtRecord>(
      kv,
      listed.map((e) => thoughtKey(sequenceId, e.value as number)),
    )).flatMap((e) => e.value === null ? [] : [e.value]);

  const page: ThoughtRecord[] = [];
  let budget = maxCharacters;
  for (const record of records) {
    if (page.length === limit) break;
    if (page.length > 0 && record.characters > budget) break;
    page.push(record);
    budget -= record.characters;
  }
  const partKeys = page.flatMap((r) =>
    Array.from({ length: r.parts ?? 0 }, (_, i) => thoughtPartKey(sequenceId, r.index, i))
  );
  const partEntries = await getAll<string>(kv, partKeys);
  const partText = new Map(partEntries.map((e) => [JSON.stringify(e.key), e.value ?? ""]));
  const thoughts = page.map((record): HistoryThought => {
    const { text, parts, ...rest } = record;
    let full = text ?? "";
    for (let i = 0; i < (parts ?? 0); i++) {
      full += partText.get(JSON.stringify(thoughtPartKey(sequenceId, record.index, i))) ?? "";
    }
    const truncated = record.characters > maxCharacters;
    return {
      ...rest,
      thought: truncated ? [...full].slice(0, maxCharacters).join("") : full,
      truncated,
    };
  });
  const more = records.length > page.length;
  const last = page.at(-1);
  return {
    sequence: summarize(seq, branchRecords, limits),
    thoughts,
    order,
    branchId: branch,
    nextCursor: more && last ? encodeCursor({ v: 1, o: order, b: branch, i: last.index }) : null,
  };
}

/** What deleting a sequence did. */
export interface DeleteResult {
  sequenceId: string;
  deleted: boolean;
  deletedThoughts: number;
}

/**
 * Deletes a sequence with all its thoughts, branches and indexes. The first atomic marks it
 * deleting (every reader and writer treats it as gone from then on), batches remove its keys,
 * and the record goes last, so no key is ever left without its sequence.
 */
export async function deleteSequence(
  kv: Deno.Kv,
  limits: ThinkingLimits,
  sequenceId: string,
  confirm: unknown,
  clock: Clock = Date.now,
): Promise<DeleteResult> {
  if (confirm !== true) {
    fail("CONFIRM_REQUIRED", "deleting a sequence needs confirm: true (it cannot be undone)");
  }
  if (!SEQUENCE_ID.test(sequenceId)) return { sequenceId, deleted: false, deletedThoughts: 0 };
  const marked = await commitWithRetry(async () => {
    const entry = await kv.get<SequenceRecord>(sequenceKey(sequenceId));
    if (entry.value === null) return { value: null };
    const wasLive = live(entry.value, limits, clock()) !== null;
    if (entry.value.deleting) return { value: { entry, wasLive } };
    const op = kv.atomic().check(entry).set(
      sequenceKey(sequenceId),
      { ...entry.value, deleting: true },
      setOptions(entry.value.expiryMs),
    );
    return { op, value: { entry, wasLive } };
  });
  if (marked === null) return { sequenceId, deleted: false, deletedThoughts: 0 };
  for (const prefix of childPrefixes(sequenceId)) await deleteUnder(kv, prefix);
  await commitWithRetry(async () => {
    const entry = await kv.get<SequenceRecord>(sequenceKey(sequenceId));
    if (entry.value === null) return { value: undefined };
    return { op: kv.atomic().check(entry).delete(sequenceKey(sequenceId)), value: undefined };
  });
  // The call that took the live sequence to "deleting" deleted it, even when a concurrent
  // delete of the same sequence removed the record first.
  const deleted = marked.wasLive;
  return {
    sequenceId,
    deleted,
    deletedThoughts: deleted ? marked.entry.value!.thoughtCount : 0,
  };
}
