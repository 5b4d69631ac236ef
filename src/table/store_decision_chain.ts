/**
 * The `superseded_by` chain of decisions: a decision may be superseded by one that stands, in its
 * workspace, and never by one whose own chain leads back to it (two decisions each superseded by
 * the other would leave neither standing).
 */

import { AppError } from "../kit/errors.ts";
import { readKey } from "../kit/reads.ts";
import { requireRecord, sameWorkspace, type TableCtx } from "./store_common.ts";
import { keys, type StoredDecision } from "./store_schema.ts";

/**
 * Checks that decision `successorId` may supersede decision `id` of workspace `ws`, and adds to
 * `op` the checks that keep that true until it commits. A decision's `superseded_by` is set once,
 * when it is resolved, so along the successor's chain only its last decision (the one superseded
 * by nothing yet) can still change: checking the successor and that last one is enough for a
 * concurrent resolve that would close a loop to fail its own checks and retry into this refusal.
 */
export async function checkSuccessor(
  ctx: TableCtx,
  op: Deno.AtomicOperation,
  id: string,
  successorId: string,
  ws: string,
): Promise<void> {
  const entry = await readKey<StoredDecision>(ctx.kv, keys.decision(successorId));
  const successor = requireRecord(entry, "decision", successorId, "get_decisions");
  sameWorkspace("decision", successorId, successor.workspace, ws);
  if (successor.status === "rejected") {
    throw new AppError(
      "invalid",
      `superseded_by ${successorId} was rejected: a decision can only be superseded by one that stands`,
    );
  }
  op.check(entry);
  const chain = [successorId];
  let last = entry;
  // The set ends a loop an older database may already hold (none that passes through `id`).
  while (last.value?.superseded_by !== undefined && !chain.includes(last.value.superseded_by)) {
    const next = last.value.superseded_by;
    if (next === id) throw cycle(id, [...chain, id]);
    chain.push(next);
    last = await readKey<StoredDecision>(ctx.kv, keys.decision(next));
  }
  if (last !== entry) op.check(last);
}

function cycle(id: string, chain: string[]): AppError {
  return new AppError(
    "invalid",
    `superseded_by ${chain[0]} would make a loop: ${
      chain.join(" is superseded by ")
    }; a superseded_by chain must not lead back to the decision it supersedes (${id})`,
    "superseded_loop",
  );
}
