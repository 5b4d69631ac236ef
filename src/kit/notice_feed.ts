/**
 * The notice feed across processes. A write that others may listen for bumps its topic's key
 * (`["notice", topic]`, a sum, so writers never conflict on it) in the same atomic; while anyone
 * in this process listens to a topic, `KvNoticeFeed` follows that key and calls `deliver` when it
 * moves. `kv.watch()` sees other writers on Deno Deploy and over KV Connect, but on a local file
 * it sees only this process's writes (measured: a watcher in another process got the first value
 * and none of five later commits), so a local file is polled instead. Nothing runs when no one
 * listens.
 *
 * Correctness: every topic remembers the versionstamp it last reported. A key only moves forward
 * (versionstamps grow), so a later read that shows the same or an older versionstamp reports
 * nothing; a local commit reported through `advance` moves the mark too, so its own poll or
 * watch does not report it twice. A notice means "read again": whatever two writes landed
 * between two reads are told as one notice, and nothing is lost.
 */

import { isKvConnectUrl } from "./open_kv.ts";
import { getAll } from "./reads.ts";

/** Deno KV watches at most this many keys in one `watch` call (and reads ten per `getMany`). */
export const WATCH_KEYS_MAX = 10;

/** How a feed follows the notice keys: `watch` (Deploy, KV Connect), `poll` (a file), or not at all. */
export type FeedMode = "watch" | "poll" | "none";

/**
 * The key a topic's writes bump: the topic is one part, already unambiguous (a fixed name, or
 * `noticeTopic`'s encoding of its parts).
 */
export function noticeKey(topic: string): Deno.KvKey {
  return ["notice", topic];
}

/** Adds a bump of each topic's key to `op` (once per topic): call it in the write's own atomic. */
export function bumpNotices(op: Deno.AtomicOperation, topics: Iterable<string>): void {
  for (const topic of new Set(topics)) op.sum(noticeKey(topic), 1n);
}

/**
 * How KV at `kvPath` can see other writers: `watch` on Deno Deploy (no path) and over a KV
 * Connect URL, `poll` on a file, `none` in memory (no other process can write to it).
 */
export function feedModeOf(kvPath: string | undefined, onDeploy: boolean): FeedMode {
  if (kvPath === undefined) return onDeploy ? "watch" : "poll";
  if (kvPath === ":memory:") return "none";
  return isKvConnectUrl(kvPath) ? "watch" : "poll";
}

/** One `watch` call's keys and how to stop it. */
interface WatchBatch {
  topics: string[];
  stop?: () => void;
}

/** Follows the notice keys of the topics added, by watch or by poll (see the module comment). */
export class KvNoticeFeed {
  readonly #kv: Deno.Kv;
  readonly #mode: "watch" | "poll";
  readonly #pollMs: number;
  readonly #deliver: (topic: string) => void;
  /** Per topic the versionstamp last seen (`""`: no key yet); `undefined` until first read. */
  readonly #seen = new Map<string, string | undefined>();
  #waiters: (() => void)[] = [];
  #closed = false;
  // poll mode
  #timer: ReturnType<typeof setTimeout> | undefined;
  #polling = false;
  #again = false;
  // watch mode
  #batches: WatchBatch[] = [];

  constructor(
    kv: Deno.Kv,
    mode: "watch" | "poll",
    pollMs: number,
    deliver: (topic: string) => void,
  ) {
    this.#kv = kv;
    this.#mode = mode;
    this.#pollMs = pollMs;
    this.#deliver = deliver;
  }

  /** How many topics are followed. */
  get size(): number {
    return this.#seen.size;
  }

  /** Starts following `topic` (its first read is the baseline: it reports nothing). */
  add(topic: string): void {
    if (this.#closed || this.#seen.has(topic)) return;
    this.#seen.set(topic, undefined);
    if (this.#mode === "poll") this.#kick();
    else this.#watchAdd(topic);
  }

  /** Stops following `topic`; the poll or watch ends with the last topic. */
  remove(topic: string): void {
    if (!this.#seen.delete(topic)) return;
    if (this.#mode === "watch") this.#watchRemove(topic);
    else if (this.#seen.size === 0 && this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    this.#settle();
  }

  /**
   * Marks a commit of this process that bumped `topic` at `versionstamp`; true when it is news
   * (the feed has not reported this version or a later one), so the caller tells the listeners.
   */
  advance(topic: string, versionstamp: string): boolean {
    if (!this.#seen.has(topic)) return false;
    const before = this.#seen.get(topic);
    if (before !== undefined && versionstamp <= before) return false;
    this.#seen.set(topic, versionstamp);
    return true;
  }

  /** Resolves once every topic followed has had its first read (tests, benchmarks). */
  ready(): Promise<void> {
    if (![...this.#seen.values()].includes(undefined)) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Stops every poll and watch for good. */
  close(): void {
    this.#closed = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    for (const b of this.#batches) b.stop?.();
    this.#batches = [];
    this.#seen.clear();
    this.#settle();
  }

  #observe(topic: string, versionstamp: string): void {
    if (!this.#seen.has(topic)) return;
    const before = this.#seen.get(topic);
    if (before !== undefined && versionstamp <= before) return;
    this.#seen.set(topic, versionstamp);
    if (before !== undefined) this.#deliver(topic);
  }

  #settle(): void {
    if ([...this.#seen.values()].includes(undefined)) return;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w();
  }

  /** Polls now (a new topic wants its baseline), or right after the poll in flight. */
  #kick(): void {
    if (this.#polling) {
      this.#again = true;
      return;
    }
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#schedule(0);
  }

  #schedule(delay: number): void {
    if (this.#closed || this.#timer !== undefined || this.#seen.size === 0) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#poll();
    }, delay);
  }

  async #poll(): Promise<void> {
    this.#polling = true;
    const topics = [...this.#seen.keys()];
    try {
      const entries = await getAll(this.#kv, topics.map(noticeKey));
      entries.forEach((e, i) => this.#observe(topics[i], e.versionstamp ?? ""));
      this.#settle();
    } catch (error) {
      // A closed KV (shutdown) ends the feed for good; anything else is tried again next time.
      if (error instanceof Deno.errors.BadResource) this.close();
      if (this.#closed) return;
    } finally {
      this.#polling = false;
    }
    const again = this.#again;
    this.#again = false;
    this.#schedule(again ? 0 : this.#pollMs);
  }

  #watchAdd(topic: string): void {
    let batch = this.#batches.find((b) => b.topics.length < WATCH_KEYS_MAX);
    if (batch === undefined) this.#batches.push(batch = { topics: [] });
    batch.topics.push(topic);
    this.#watch(batch);
  }

  #watchRemove(topic: string): void {
    const batch = this.#batches.find((b) => b.topics.includes(topic));
    if (batch === undefined) return;
    batch.topics = batch.topics.filter((t) => t !== topic);
    if (batch.topics.length > 0) return this.#watch(batch);
    batch.stop?.();
    this.#batches = this.#batches.filter((b) => b !== batch);
  }

  /** (Re)starts the one watch of `batch`'s keys; its first answer is their current values. */
  #watch(batch: WatchBatch): void {
    batch.stop?.();
    const topics = [...batch.topics];
    const reader = this.#kv.watch(topics.map(noticeKey)).getReader();
    let stopped = false;
    batch.stop = () => {
      stopped = true;
      reader.cancel().catch(() => {});
    };
    void (async () => {
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done || stopped) return;
          value.forEach((e, i) => this.#observe(topics[i], e.versionstamp ?? ""));
          this.#settle();
        }
      } catch {
        // The KV closed (shutdown), or the stream was cancelled: nothing left to follow.
      }
    })();
  }
}
