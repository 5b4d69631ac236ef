/**
 * The record families import checks: every toolset's declared shapes (kit/record_shapes.ts),
 * loaded here so the import knows them all without loading a toolset's tools.
 */

import "../table/store_shapes.ts";
import "../handoff/store_schema.ts";
import "../memory/store_keys.ts";
import "../focus/store_keys.ts";
import "../thinking/store_keys.ts";
import { declaredFamilies, keyLabel, storedProblem } from "../kit/record_shapes.ts";

/** What is wrong with an entry to import (its key and what it holds), or `undefined`. */
export function importProblem(key: Deno.KvKey, value: unknown): string | undefined {
  const problem = storedProblem(key, value);
  return problem === undefined ? undefined : `${keyLabel(key)} is not a valid record: ${problem}`;
}

/** The names of the families import checks, in order (for the README and errors). */
export function checkedFamilies(): string[] {
  return [...declaredFamilies().keys()].sort();
}
