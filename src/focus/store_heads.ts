/**
 * Reads of project records shared by concurrent `get_state` calls of one process. A cached state
 * costs one read of its project record (store_cache.ts), and that read (~0.1 ms of CPU on a KV
 * file) is most of what a cached `get_state` costs; many clients polling one project each paid
 * it. A call now joins a read that has not started yet, so what it gets is still read after the
 * call began: a write completed before the call is always seen. A call that arrives while a read
 * is running waits for the next one, which starts when that one ends and serves every call that
 * arrived meanwhile.
 *
 * When the record shows a version the cache does not hold, the calls that saw that version share
 * one full read of the state too (after a write, every poller of the project would otherwise
 * read all its follow-ups at once). That is still current for each of them: a read started
 * after some call saw version V returns V or newer, and one started before returns at most the
 * version then current, so exactly V, which that call saw as current after it began.
 */

import { readKey } from "../kit/reads.ts";
import { type FocusState, type Project, projectKey } from "./store_keys.ts";

type Head = Deno.KvEntryMaybe<Project>;

/** Per project: the read running now, and the one that starts after it (with its callers). */
interface Reads {
  running: Promise<Head>;
  next?: Promise<Head>;
}

/** Project record reads of one process, shared by the calls waiting for the same one. */
export class SharedHeadReads {
  readonly #reads = new Map<string, Reads>();
  /** Full reads running, by project and the version their callers saw. */
  readonly #loads = new Map<string, Promise<FocusState>>();

  /** The state of `projectId` read by `load`, shared with the calls that saw `versionstamp`. */
  load(
    projectId: string,
    versionstamp: string,
    load: () => Promise<FocusState>,
  ): Promise<FocusState> {
    const key = `${versionstamp}\u0000${projectId}`;
    let running = this.#loads.get(key);
    if (running === undefined) {
      running = load();
      this.#loads.set(key, running);
      const done = () => this.#loads.delete(key);
      running.then(done, done);
    }
    return running;
  }

  /** The project record of `projectId`, read after this call began. */
  read(kv: Deno.Kv, projectId: string): Promise<Head> {
    const reads = this.#reads.get(projectId);
    if (reads === undefined) return this.#start(kv, projectId).running;
    reads.next ??= reads.running.then(
      () => this.#start(kv, projectId).running,
      () => this.#start(kv, projectId).running,
    );
    return reads.next;
  }

  #start(kv: Deno.Kv, projectId: string): Reads {
    const reads: Reads = { running: readKey<Project>(kv, projectKey(projectId)) };
    this.#reads.set(projectId, reads);
    const done = () => {
      if (this.#reads.get(projectId) === reads) this.#reads.delete(projectId);
    };
    reads.running.then(done, done);
    return reads;
  }
}
