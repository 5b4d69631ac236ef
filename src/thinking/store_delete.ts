/** Deleting a sequence with all its keys, in atomics that never leave a key without its sequence. */

import { unindex } from "../kit/search_source.ts";
import { atomic, commitWithRetry } from "../kit/commit.ts";
import type { ThinkingLimits } from "./settings.ts";
import { deleteUnder } from "../kit/bulk_writes.ts";
import { readKey } from "../kit/reads.ts";
import { fail } from "./store_errors.ts";
import { childPrefixes, isSequenceId, sequenceKey, type SequenceRecord } from "./store_keys.ts";
import { type Clock, live, setOptions } from "./store_retention.ts";

/** What deleting a sequence did. */
export interface DeleteResult {
  sequenceId: string;
  deleted: boolean;
  deletedThoughts: number;
}

/**
 * Deletes a sequence with all its thoughts, branches and indexes. The first atomic marks it
 * deleting (every reader and writer treats it as gone from then on), batches remove its keys,
 * and the record goes last, so no key is ever left without its sequence.
 */
export async function deleteSequence(
  kv: Deno.Kv,
  limits: ThinkingLimits,
  sequenceId: string,
  confirm: unknown,
  clock: Clock = Date.now,
): Promise<DeleteResult> {
  if (confirm !== true) {
    fail("CONFIRM_REQUIRED", "deleting a sequence needs confirm: true (it cannot be undone)");
  }
  if (!isSequenceId(sequenceId)) return { sequenceId, deleted: false, deletedThoughts: 0 };
  const marked = await commitWithRetry(async () => {
    const entry = await readKey<SequenceRecord>(kv, sequenceKey(sequenceId));
    if (entry.value === null) return { value: null };
    const wasLive = live(entry.value, limits, clock()) !== null;
    if (entry.value.deleting) return { value: { entry, wasLive } };
    const op = atomic(kv).check(entry).set(
      sequenceKey(sequenceId),
      { ...entry.value, deleting: true },
      setOptions(entry.value.expiryMs),
    );
    unindex(op, [["thought", sequenceId]]);
    return { op, value: { entry, wasLive } };
  });
  if (marked === null) return { sequenceId, deleted: false, deletedThoughts: 0 };
  for (const prefix of childPrefixes(sequenceId)) await deleteUnder(kv, prefix);
  await commitWithRetry(async () => {
    const entry = await readKey<SequenceRecord>(kv, sequenceKey(sequenceId));
    if (entry.value === null) return { value: undefined };
    return { op: atomic(kv).check(entry).delete(sequenceKey(sequenceId)), value: undefined };
  });
  // The call that took the live sequence to "deleting" deleted it, even when a concurrent
  // delete of the same sequence removed the record first.
  const deleted = marked.wasLive;
  return {
    sequenceId,
    deleted,
    deletedThoughts: deleted ? marked.entry.value!.thoughtCount : 0,
  };
}
