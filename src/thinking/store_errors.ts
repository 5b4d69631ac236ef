/** The thinking toolset's named failures: each code starts its error message. */

import { AppError, type ErrorKind } from "../kit/errors.ts";

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
  /** The thought has a lone UTF-16 surrogate (it is not well-formed Unicode text). */
  THOUGHT_INVALID: "invalid",
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
} as const satisfies Record<string, ErrorKind>;

/** The name of one failure; it starts the error message so clients can tell failures apart. */
export type ThinkingErrorCode = keyof typeof THINKING_ERRORS;

/** Throws the failure named `code`: an `AppError` of its kind whose message starts with it. */
export function fail(code: ThinkingErrorCode, message: string): never {
  throw new AppError(THINKING_ERRORS[code], message, code);
}

/** Throws `SEQUENCE_NOT_FOUND` for `sequenceId`, saying how to start a new sequence. */
export function sequenceNotFound(sequenceId: string): never {
  fail(
    "SEQUENCE_NOT_FOUND",
    `no sequence has id "${sequenceId}" (it may have been deleted, or expired after a period without writes). Omit sequenceId to start a new sequence`,
  );
}
