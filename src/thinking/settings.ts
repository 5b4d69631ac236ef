/** The thinking toolset's limits, read from the environment when the toolset is loaded. */

import { type EnvSource, intVar } from "../kit/env.ts";

/** Limits of the thinking toolset. */
export interface ThinkingLimits {
  /** Longest thought, in characters (Unicode code points) of any script. */
  thoughtMax: number;
  /** Largest thoughtNumber, totalThoughts, revisesThought or branchFromThought. */
  numberMax: number;
  /** Longest branch id, in characters. */
  branchIdMax: number;
  /** Most branches one sequence may hold. */
  branchesMax: number;
  /** Most thoughts one sequence may hold. */
  thoughtsPerSequenceMax: number;
  /** Largest and default page of get_thought_history, in thoughts. */
  historyPageMax: number;
  historyPageDefault: number;
  /** Largest and default budget of thought text in one history page, in characters. */
  historyCharactersMax: number;
  historyCharactersDefault: number;
  /** Milliseconds a sequence lives after its last write; 0 keeps it until deleted. */
  retentionMs: number;
}

/** Default thinking limits (retention 0: keep every sequence until it is deleted). */
export const DEFAULT_THINKING_LIMITS: ThinkingLimits = {
  thoughtMax: 20_000,
  numberMax: 1_000_000,
  branchIdMax: 64,
  branchesMax: 200,
  thoughtsPerSequenceMax: 10_000,
  historyPageMax: 100,
  historyPageDefault: 50,
  historyCharactersMax: 250_000,
  historyCharactersDefault: 60_000,
  retentionMs: 0,
};

/** Longest `THOUGHT_RETENTION_DAYS` accepted (ten years). */
export const MAX_RETENTION_DAYS = 3650;
const DAY_MS = 86_400_000;

/** Reads the thinking settings; throws an `Error` naming a bad variable. */
export function loadThinkingSettings(env: EnvSource): ThinkingLimits {
  return {
    ...DEFAULT_THINKING_LIMITS,
    retentionMs: intVar(env, "THOUGHT_RETENTION_DAYS", 0, 0, MAX_RETENTION_DAYS) * DAY_MS,
  };
}
