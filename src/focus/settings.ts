/** The focus toolset's limits, read from the environment when the toolset is loaded. */

import { type EnvSource, intVar } from "../kit/env.ts";

/** Limits of the focus toolset. */
export interface FocusLimits {
  /** Longest project id, in characters. */
  projectIdMax: number;
  /** Longest north star, focus statement, why or task body, in characters. */
  textMax: number;
  /** Most open follow-ups (cleanup and record tasks) one project may hold. */
  openFollowUpsMax: number;
  /** Largest page of list_projects. */
  listPageMax: number;
}

/** Default focus limits. */
export const DEFAULT_FOCUS_LIMITS: FocusLimits = {
  projectIdMax: 128,
  textMax: 4000,
  openFollowUpsMax: 500,
  listPageMax: 100,
};

/** Reads the focus settings; throws an `Error` naming a bad variable. */
export function loadFocusSettings(env: EnvSource): FocusLimits {
  return {
    ...DEFAULT_FOCUS_LIMITS,
    openFollowUpsMax: intVar(env, "FOCUS_OPEN_FOLLOWUPS_MAX", 500, 1, 10_000),
  };
}
