/** The typed input of `sequentialthinking`, and the checks that need no read. */

import type { ThinkingLimits } from "./settings.ts";
import { fail } from "./store_errors.ts";
import { MAIN_BRANCH } from "./store_keys.ts";
import { characterCount, checkId, checkWellFormed } from "../kit/text.ts";

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

function checkNumber(name: string, value: number | undefined, limits: ThinkingLimits): void {
  if (value === undefined) return;
  if (!Number.isInteger(value) || value < 1 || value > limits.numberMax) {
    fail(
      "NUMBER_OUT_OF_RANGE",
      `${name} must be a whole number from 1 to ${limits.numberMax}, got ${value}`,
    );
  }
}

/** Checks a branch id: 1–max characters, not blank, no control characters or lone surrogates. */
function checkBranchId(name: string, value: string, limits: ThinkingLimits): void {
  checkId(value, limits.branchIdMax, { name, code: "BRANCH_ID_INVALID" });
}

/**
 * Checks everything that needs no read: text, numbers, ids and how the flags combine.
 * Returns the thought's length in characters.
 */
export function validateThought(input: ThoughtInput, limits: ThinkingLimits): number {
  if (input.thought.trim() === "") {
    fail("THOUGHT_EMPTY", "thought must contain the thinking step; it is empty");
  }
  checkWellFormed(input.thought, { name: "thought", code: "THOUGHT_INVALID" });
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
