/** Deleting handoffs: one with everything it owns, or all of them. */

import { atomic, commitOnce, commitWithRetry } from "../kit/commit.ts";
import type { HandoffLimits } from "./settings.ts";
import { deleteWith, sweepPendingDeletes } from "../kit/chunks.ts";
import { AppError } from "../kit/errors.ts";
import { listPage, readKey } from "../kit/reads.ts";
import { removeInto } from "./store_evict.ts";
import { notFound } from "./store_read.ts";
import { countKeyOf, type Handoff, handoffKey, handoffTimePrefix } from "./store_schema.ts";
import { validateKey } from "./store_validate.ts";
import { collectAfter } from "./store_write.ts";

/** Deletes one handoff with its conversation and comments; returns what was deleted. */
export async function deleteHandoff(
  kv: Deno.Kv,
  limits: HandoffLimits,
  key: string,
): Promise<Handoff> {
  const what = "Cannot delete handoff";
  validateKey(key, limits, what);
  const { handoff, collect } = await commitWithRetry(async () => {
    const current = await readKey<Handoff>(kv, handoffKey(key));
    if (current.value === null) throw notFound(what, key);
    // An imported handoff is counted apart (HANDOFF_IMPORTED_MAX_COUNT).
    const countKey = countKeyOf(current.value);
    const count = await readKey<number>(kv, countKey);
    const op = atomic(kv).check(current, count)
      .set(countKey, Math.max(0, (count.value ?? 1) - 1));
    const garbage: Deno.KvKey[] = [];
    removeInto(op, garbage, current.value);
    const collect = deleteWith(kv, op, garbage);
    return { op, value: { handoff: current.value, collect } };
  });
  await collectAfter(collect);
  return handoff;
}

/** Deletes every handoff, one atomic per handoff; returns how many were deleted. */
export async function clearHandoffs(kv: Deno.Kv, limits: HandoffLimits): Promise<number> {
  let deleted = 0;
  for (;;) {
    const page = await listPage<string>(kv, handoffTimePrefix(), { limit: 50 });
    if (page.items.length === 0) break;
    for (const entry of page.items) {
      try {
        await deleteHandoff(kv, limits, entry.value);
        deleted++;
      } catch (error) {
        if (!(error instanceof AppError && error.kind === "not_found")) throw error;
        // Deleted concurrently, or a stale index entry: drop the entry if it is still there.
        const op = atomic(kv).check(entry).delete(entry.key);
        await commitOnce(op);
      }
    }
  }
  while (await sweepPendingDeletes(kv) > 0);
  return deleted;
}
