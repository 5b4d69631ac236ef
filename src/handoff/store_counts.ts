/**
 * Which count a written handoff joins: saved handoffs count against `HANDOFF_MAX_COUNT` (and may
 * evict the oldest), imported ones against `HANDOFF_IMPORTED_MAX_COUNT` (and never evict, nor are
 * they evicted). A record that changes kind leaves one count for the other in the same atomic.
 */

import type { HandoffLimits } from "./settings.ts";
import { AppError } from "../kit/errors.ts";
import { readKey } from "../kit/reads.ts";
import { makeRoom } from "./store_evict.ts";
import {
  countKeyOf,
  type Evicted,
  type Handoff,
  handoffCountKey,
  handoffImportCountKey,
} from "./store_schema.ts";

/** The error of a store holding as many imported handoffs as it may. */
export function importFullError(what: string, limits: HandoffLimits, count: number): AppError {
  return new AppError(
    "full",
    `${what}: the store holds ${count} imported handoffs, the maximum (HANDOFF_IMPORTED_MAX_COUNT=${limits.importedMax}); imported history is never evicted: raise the setting or delete imported handoffs first`,
  );
}

/**
 * Adds to `op` the count changes of writing a handoff of kind `imported` under `key`, replacing
 * `existing` (or nothing): none for a rewrite of the same kind; otherwise the old kind's count
 * goes down and the new kind's goes up, a saved one making room by eviction as ever.
 */
export async function countInto(
  kv: Deno.Kv,
  limits: HandoffLimits,
  op: Deno.AtomicOperation,
  garbage: Deno.KvKey[],
  existing: Handoff | null,
  imported: boolean,
  key: string,
  what: string,
): Promise<Evicted | null> {
  if (existing !== null && Boolean(existing.imported) === imported) return null;
  if (existing !== null) {
    const old = await readKey<number>(kv, countKeyOf(existing));
    op.check(old).set(countKeyOf(existing), Math.max(0, (old.value ?? 1) - 1));
  }
  if (!imported) {
    const count = await readKey<number>(kv, handoffCountKey());
    return await makeRoom(kv, limits, op, garbage, count, 1, new Set([key]), what);
  }
  const count = await readKey<number>(kv, handoffImportCountKey());
  const next = (count.value ?? 0) + 1;
  if (next > limits.importedMax) throw importFullError(what, limits, count.value ?? 0);
  op.check(count).set(handoffImportCountKey(), next);
  return null;
}
