/** `WRITE_BUDGET_BYTES` and `WRITE_WAIT_MS`: the settings of `admission.ts`, read with the server's. */

import { type EnvSource, intVar } from "../kit/env.ts";

/** The admission's settings. */
export interface AdmissionSettings {
  /** Bytes of large bodies in flight at once (`WRITE_BUDGET_BYTES`). */
  budgetBytes: number;
  /** Longest a large body waits for room before it is refused as busy (`WRITE_WAIT_MS`). */
  waitMs: number;
}

const MIB = 1024 * 1024;

/** Reads `WRITE_BUDGET_BYTES` and `WRITE_WAIT_MS`; throws naming a bad one. */
export function loadAdmissionSettings(env: EnvSource): AdmissionSettings {
  return {
    budgetBytes: intVar(env, "WRITE_BUDGET_BYTES", 4 * MIB, 64 * 1024, 1024 * MIB),
    waitMs: intVar(env, "WRITE_WAIT_MS", 30_000, 0, 600_000),
  };
}
