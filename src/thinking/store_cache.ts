/** The per-session cache of the sequence a session wrote last, so its next thought skips reads. */

import type { BranchRecord, SequenceRecord } from "./store_keys.ts";

/** The state of one sequence as this session last committed it. */
export interface CachedSequence {
  versionstamp: string;
  seq: SequenceRecord;
  /** Branch records already read or written (they never change once created). */
  branches: Map<string, BranchRecord>;
}

/**
 * Remembers the sequence a session wrote last, as of its own commit, so the session's next
 * thought needs no read: the commit checks the cached versionstamp, and when another writer got
 * there first the check fails and the retry reads afresh.
 */
export class SequenceCache {
  #state: CachedSequence | undefined;
  /** Hands out (and forgets) the cached state of `sequenceId`, if that is the one cached. */
  take(sequenceId: string): CachedSequence | undefined {
    const state = this.#state;
    this.#state = undefined;
    return state?.seq.id === sequenceId ? state : undefined;
  }
  /** Keeps the state a commit just produced. */
  put(state: CachedSequence): void {
    this.#state = state;
  }
}
