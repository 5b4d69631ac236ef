/**
 * Where a new thought goes: on the main line, an existing branch or a branch it creates, and
 * which stored thoughts its fork point and revision target name. Thought numbers live per branch;
 * a reference resolves on the thought's branch first, then its ancestors, nearest first.
 */

import type { ThinkingLimits } from "./settings.ts";
import { getAll, readKeys } from "../kit/reads.ts";
import { fail } from "./store_errors.ts";
import {
  branchKey,
  type BranchRecord,
  MAIN_BRANCH,
  type SequenceRecord,
  thoughtNumberKey,
} from "./store_keys.ts";
import type { ThoughtInput } from "./store_validate.ts";

/** The branch `input` names, or `undefined` for the main line. */
export function namedBranch(input: ThoughtInput): string | undefined {
  return input.branchId !== undefined && input.branchId !== MAIN_BRANCH
    ? input.branchId
    : undefined;
}

/** The branch records a thought names (its branch and its fork's parent), "main" left out. */
export function branchesNamed(input: ThoughtInput): string[] {
  return [namedBranch(input), input.branchFromBranchId].filter((id): id is string =>
    id !== undefined && id !== MAIN_BRANCH
  );
}

/**
 * Reads into `known` the branch records `input` names that `seq` has and `known` lacks. They
 * never change once created, and the check on the sequence record covers their creation.
 */
export async function learnBranches(
  kv: Deno.Kv,
  seq: SequenceRecord,
  input: ThoughtInput,
  known: Map<string, BranchRecord>,
): Promise<void> {
  const missing = branchesNamed(input).filter((id) =>
    !known.has(id) && seq.branches.some((b) => b.id === id)
  );
  if (missing.length === 0) return;
  const got = await readKeys<BranchRecord[]>(kv, missing.map((id) => branchKey(seq.id, id)));
  for (const entry of got) if (entry.value !== null) known.set(entry.value.id, entry.value);
}

/** Which branch a thought goes on, and the lines its references resolve through. */
export interface Placement {
  /** The branch the thought is written on. */
  branchId: string;
  /** Branches `revisesThought` may name a thought on, nearest first. */
  lineage: string[];
  /** The named branch when it exists already. */
  existing: BranchRecord | null;
  /** The branch this thought creates (fork index and first index still 0). */
  newBranch?: BranchRecord;
  /** The parent branch of the fork, when this thought creates or names one. */
  parentId?: string;
}

/**
 * Places a thought: continues an existing branch (whose fork must match what the thought says),
 * creates one (its parent must exist, and the sequence must have room), or stays on main.
 */
export function placeThought(
  input: ThoughtInput,
  seq: SequenceRecord,
  known: Map<string, BranchRecord>,
  limits: ThinkingLimits,
  createdAt: string,
): Placement {
  const named = namedBranch(input);
  if (named === undefined) return { branchId: MAIN_BRANCH, lineage: [MAIN_BRANCH], existing: null };
  const parentArg = input.branchFromBranchId;
  const existing = known.get(named) ?? null;
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
    return {
      branchId: named,
      lineage: [named, ...existing.ancestors],
      existing,
      ...(input.branchFromThought !== undefined && { parentId: existing.parentId }),
    };
  }
  if (input.branchFromThought === undefined) {
    fail(
      "BRANCH_NOT_FOUND",
      `sequence "${seq.id}" has no branch "${named}"; to start it, also send branchFromThought (and branchFromBranchId when forking from another branch)`,
    );
  }
  const parentId = parentArg ?? MAIN_BRANCH;
  let parentAncestors: string[] = [];
  if (parentId !== MAIN_BRANCH) {
    const parent = known.get(parentId) ?? null;
    if (parent === null) {
      fail(
        "BRANCH_NOT_FOUND",
        `branchFromBranchId "${parentId}" names no branch of sequence "${seq.id}"; omit it to fork from the main line`,
      );
    }
    parentAncestors = parent.ancestors;
  }
  if (seq.branches.length >= limits.branchesMax) {
    fail(
      "TOO_MANY_BRANCHES",
      `sequence "${seq.id}" already has ${seq.branches.length} branches, the most allowed; continue an existing branch`,
    );
  }
  const forkLineage = parentId === MAIN_BRANCH ? [MAIN_BRANCH] : [parentId, ...parentAncestors];
  return {
    branchId: named,
    lineage: forkLineage,
    existing: null,
    newBranch: {
      id: named,
      parentId,
      forkThought: input.branchFromThought,
      forkIndex: 0,
      ancestors: forkLineage,
      createdAt,
      createdIndex: 0,
    },
    parentId,
  };
}

/** The history indexes a thought's fork point and revision target resolve to. */
export interface References {
  branchFromIndex?: number;
  revisesIndex?: number;
}

/**
 * Resolves the fork point of a new branch and the revision target through the thought-number
 * index, nearest branch first; refuses a reference that names no stored thought.
 */
export async function resolveReferences(
  kv: Deno.Kv,
  sequenceId: string,
  input: ThoughtInput,
  placement: Placement,
): Promise<References> {
  const { newBranch, lineage, existing, branchId } = placement;
  const wanted: { line: string; n: number; what: "fork" | "revision" }[] = [];
  if (newBranch !== undefined) {
    for (const line of newBranch.ancestors) {
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
  const refs: References = {};
  if (newBranch !== undefined) {
    refs.branchFromIndex = resolve("fork");
    if (refs.branchFromIndex === undefined) {
      fail(
        "BRANCH_POINT_NOT_FOUND",
        `branchFromThought ${input.branchFromThought} names no thought on "${newBranch.parentId}"${
          newBranch.ancestors.length > 1 ? " or its ancestors" : ""
        } in sequence "${sequenceId}"`,
      );
    }
  } else if (existing !== null && input.branchFromThought !== undefined) {
    refs.branchFromIndex = existing.forkIndex;
  }
  if (input.revisesThought !== undefined) {
    refs.revisesIndex = resolve("revision");
    if (refs.revisesIndex === undefined) {
      fail(
        "REVISION_TARGET_NOT_FOUND",
        `revisesThought ${input.revisesThought} names no thought on "${branchId}"${
          lineage.length > 1 || lineage[0] !== branchId ? " or its ancestors" : ""
        } in sequence "${sequenceId}"`,
      );
    }
  }
  return refs;
}
