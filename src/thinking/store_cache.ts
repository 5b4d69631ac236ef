/** A cache of sequences as this process last committed them, so their next thought skips reads. */

import type { BranchRecord, SequenceRecord } from "./store_keys.ts";

/** The state of one sequence as this session last committed it. */
export interface CachedSequence {
  versionstamp: string;
  seq: SequenceRecord;
  /** Branch records already read or written (they never change once created). */
  branches: Map<string, BranchRecord>;
  /**
   * The highest thought number on each branch, when this process wrote the sequence from its
   * creation on (else undefined): every number in the index is then known to be at most that,
   * so a higher one is new without a check. A branch not listed has no numbers.
   */
  highest?: ReadonlyMap<string, number>;
}

/**
 * Remembers the sequences written last (at most `capacity`, least recently written dropped), as
 * of their own commits, so the next thought of one needs no read: the commit checks the cached
 * versionstamp, and when another writer got there first the check fails and the retry reads
 * afresh. Correctness never rests on it, so one cache can serve every client of a process.
 */
export class SequenceCache {
  readonly #states = new Map<string, CachedSequence>();
  readonly #capacity: number;

  constructor(capacity = 1) {
    this.#capacity = capacity;
  }

  /** Hands out (and forgets) the cached state of `sequenceId`, if there is one. */
  take(sequenceId: string): CachedSequence | undefined {
    const state = this.#states.get(sequenceId);
    if (state !== undefined) this.#states.delete(sequenceId);
    return state;
  }

  /** Keeps the state a commit just produced. */
  put(state: CachedSequence): void {
    this.#states.delete(state.seq.id);
    this.#states.set(state.seq.id, state);
    if (this.#states.size > this.#capacity) {
      this.#states.delete(this.#states.keys().next().value!);
    }
  }
}
