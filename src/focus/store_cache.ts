/**
 * Project states as this process last read or wrote them, each under the versionstamp of its
 * project record. Every write to a project's focus or follow-ups also writes that record, so a
 * state whose versionstamp still matches the record is exactly what a fresh read would return:
 * `get_state` then costs one `getMany` however many follow-ups are open, and never a stale view
 * (another process's write changes the versionstamp too).
 */

import type { FocusState } from "./store_keys.ts";
import { SharedHeadReads } from "./store_heads.ts";

/** Most text (in UTF-16 code units of follow-up bodies) the cache holds before it drops states. */
const BUDGET_UNITS = 4_000_000;

/** A bounded cache of project states keyed by project id and checked by versionstamp. */
export class FocusStateCache {
  /** The version checks of concurrent calls, shared (see `store_heads.ts`). */
  readonly heads = new SharedHeadReads();
  readonly #entries = new Map<string, { versionstamp: string; state: FocusState; size: number }>();
  #size = 0;

  /** The cached state of `projectId` if it is the version `versionstamp`. */
  get(projectId: string, versionstamp: string): FocusState | undefined {
    const entry = this.#entries.get(projectId);
    if (entry === undefined || entry.versionstamp !== versionstamp) return undefined;
    // Most recently used last, so eviction drops the least recently used.
    this.#entries.delete(projectId);
    this.#entries.set(projectId, entry);
    return entry.state;
  }

  /** The last state cached for `projectId` and its version, which may since have changed. */
  latest(projectId: string): { versionstamp: string; state: FocusState } | undefined {
    const entry = this.#entries.get(projectId);
    return entry && this.get(projectId, entry.versionstamp) && entry;
  }

  /** Keeps `state` as the version `versionstamp` of its project. */
  put(versionstamp: string, state: FocusState): void {
    this.#drop(state.projectId);
    let size = 64;
    for (const task of state.followUps) size += task.body.length + 64;
    if (size > BUDGET_UNITS) return;
    this.#entries.set(state.projectId, { versionstamp, state, size });
    this.#size += size;
    for (const id of this.#entries.keys()) {
      if (this.#size <= BUDGET_UNITS) break;
      this.#drop(id);
    }
  }

  #drop(projectId: string): void {
    const entry = this.#entries.get(projectId);
    if (entry === undefined) return;
    this.#entries.delete(projectId);
    this.#size -= entry.size;
  }
}
