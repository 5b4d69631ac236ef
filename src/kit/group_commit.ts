/**
 * Group commit: every write of this process goes through `atomic(kv)` (commit.ts, the one entry
 * for writes), an operation that records its checks and mutations and, on `commit()`, joins the
 * other writes waiting for the same KV handle. While one commit is in flight the next ones queue;
 * when it lands, the queue is committed as one atomic. A KV file then pays one SQLite transaction
 * and one fsync for many writes, and a lone writer waits for nothing. Writes merged into one
 * atomic never touch a key another of them writes, so the merged commit means exactly what the
 * writes would mean one after the other; if it fails (a check failed, a limit was passed), each
 * write is committed on its own and gets its own answer.
 */

import { keyText } from "./key_text.ts";
import { speedOn } from "./speed_switches.ts";

/** Most checks Deno KV takes in one atomic. */
export const MAX_ATOMIC_CHECKS = 100;
/** Most mutations (and enqueues) Deno KV takes in one atomic. */
const MAX_MUTATIONS = 1000;
/** Key bytes one merged atomic may carry, under KV's 80 KiB. */
const MAX_KEY_BYTES = 64 * 1024;
/** Estimated value bytes one merged atomic may carry, under KV's 800 KiB. */
const MAX_VALUE_BYTES = 512 * 1024;
/** A write estimated larger than this is committed alone (it would crowd others out anyway). */
const ALONE_BYTES = 128 * 1024;

type Step = (op: Deno.AtomicOperation) => void;

/** What the committer needs to know to merge a write: its keys and a size estimate. */
export interface WriteShape {
  /** Keys checked, as text. */
  checked: Set<string>;
  /** Keys written (set, delete, sum, min, max), as text. */
  written: Set<string>;
  checks: number;
  mutations: number;
  keyBytes: number;
  valueBytes: number;
}

/**
 * An atomic operation with `Deno.AtomicOperation`'s interface whose `commit()` goes through the
 * group committer of its KV handle. It may be committed again (a retry after `database is locked`).
 * Recording costs little; keys and sizes are only worked out when another write waits to merge.
 */
export class GroupedAtomic implements Deno.AtomicOperation {
  readonly #kv: Deno.Kv;
  readonly #steps: Step[] = [];
  readonly #checks: Deno.KvKey[] = [];
  /** Written keys, each with the value set (`undefined` for other mutations). */
  readonly #writes: [Deno.KvKey, unknown][] = [];
  readonly #enqueued: unknown[] = [];
  #shape: WriteShape | undefined;

  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  check(...checks: Deno.AtomicCheck[]): this {
    for (const { key, versionstamp } of checks) {
      this.#steps.push((op) => op.check({ key, versionstamp }));
      this.#checks.push(key);
    }
    return this;
  }

  mutate(...mutations: Deno.KvMutation[]): this {
    for (const m of mutations) {
      this.#steps.push((op) => op.mutate(m));
      this.#writes.push([m.key, m.type === "set" ? m.value : undefined]);
    }
    return this;
  }

  sum(key: Deno.KvKey, n: bigint): this {
    this.#steps.push((op) => op.sum(key, n));
    this.#writes.push([key, undefined]);
    return this;
  }

  min(key: Deno.KvKey, n: bigint): this {
    this.#steps.push((op) => op.min(key, n));
    this.#writes.push([key, undefined]);
    return this;
  }

  max(key: Deno.KvKey, n: bigint): this {
    this.#steps.push((op) => op.max(key, n));
    this.#writes.push([key, undefined]);
    return this;
  }

  set(key: Deno.KvKey, value: unknown, options?: { expireIn?: number }): this {
    this.#steps.push((op) => op.set(key, value, options));
    this.#writes.push([key, value]);
    return this;
  }

  delete(key: Deno.KvKey): this {
    this.#steps.push((op) => op.delete(key));
    this.#writes.push([key, undefined]);
    return this;
  }

  enqueue(
    value: unknown,
    options?: { delay?: number; keysIfUndelivered?: Deno.KvKey[]; backoffSchedule?: number[] },
  ): this {
    this.#steps.push((op) => op.enqueue(value, options));
    this.#enqueued.push(value);
    return this;
  }

  /** Commits with whatever other writes are waiting, or alone; the answer is this write's own. */
  commit(): Promise<Deno.KvCommitResult | Deno.KvCommitError> {
    if (!speedOn("group_commit")) return this.commitAlone();
    return committerOf(this.#kv).submit(this);
  }

  /** Adds this write's checks and mutations to `op`. */
  applyTo(op: Deno.AtomicOperation): Deno.AtomicOperation {
    for (const step of this.#steps) step(op);
    return op;
  }

  /** Commits this write alone, as a plain atomic. */
  commitAlone(): Promise<Deno.KvCommitResult | Deno.KvCommitError> {
    return this.applyTo(this.#kv.atomic()).commit();
  }

  /** This write's keys and estimated size, worked out on first use. */
  get shape(): WriteShape {
    if (this.#shape !== undefined) return this.#shape;
    const shape: WriteShape = {
      checked: new Set(),
      written: new Set(),
      checks: this.#checks.length,
      mutations: this.#writes.length + this.#enqueued.length,
      keyBytes: 0,
      valueBytes: 0,
    };
    for (const key of this.#checks) {
      const text = keyText(key);
      shape.keyBytes += text.length * 2;
      shape.checked.add(text);
    }
    for (const [key, value] of this.#writes) {
      const text = keyText(key);
      shape.keyBytes += text.length * 2;
      shape.written.add(text);
      shape.valueBytes += value === undefined ? 16 : roughSize(value, ALONE_BYTES);
    }
    for (const value of this.#enqueued) shape.valueBytes += roughSize(value, ALONE_BYTES);
    return this.#shape = shape;
  }

  /** True when this write is too big to share an atomic. */
  get alone(): boolean {
    return this.shape.valueBytes > ALONE_BYTES;
  }
}

interface Waiting {
  write: GroupedAtomic;
  done: PromiseWithResolvers<Deno.KvCommitResult | Deno.KvCommitError>;
}

/** The writes of one KV handle: at most one commit in flight, the rest waiting to join the next. */
class Committer {
  readonly #kv: Deno.Kv;
  #waiting: Waiting[] = [];
  #busy = false;

  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  submit(write: GroupedAtomic): Promise<Deno.KvCommitResult | Deno.KvCommitError> {
    if (this.#busy) {
      const done = Promise.withResolvers<Deno.KvCommitResult | Deno.KvCommitError>();
      this.#waiting.push({ write, done });
      return done.promise;
    }
    // Nothing in flight: this write goes straight to KV, and what queues meanwhile follows it.
    this.#busy = true;
    let result: Promise<Deno.KvCommitResult | Deno.KvCommitError>;
    try {
      result = write.commitAlone();
    } catch (error) {
      this.#busy = false;
      return Promise.reject(error);
    }
    void result.then(this.#next, this.#next);
    return result;
  }

  readonly #next = (): void => {
    if (this.#waiting.length === 0) this.#busy = false;
    else void this.#drain();
  };

  async #drain(): Promise<void> {
    try {
      while (this.#waiting.length > 0) await this.#commit(this.#takeBatch());
    } finally {
      this.#busy = false;
    }
  }

  /** The longest run of waiting writes, in order, that one atomic can carry without overlap. */
  #takeBatch(): Waiting[] {
    // A lone write needs no shape: the common case when the server is quiet.
    if (this.#waiting.length === 1 || this.#waiting[0].write.alone) {
      return this.#waiting.splice(0, 1);
    }
    const first = this.#waiting[0].write.shape;
    const checked = new Set(first.checked);
    const written = new Set(first.written);
    let { checks, mutations, keyBytes, valueBytes } = first;
    let n = 1;
    for (; n < this.#waiting.length; n++) {
      const next = this.#waiting[n].write;
      if (next.alone) break;
      const w = next.shape;
      if (
        checks + w.checks > MAX_ATOMIC_CHECKS || mutations + w.mutations > MAX_MUTATIONS ||
        keyBytes + w.keyBytes > MAX_KEY_BYTES || valueBytes + w.valueBytes > MAX_VALUE_BYTES ||
        overlaps(w.written, written) || overlaps(w.written, checked) ||
        overlaps(w.checked, written)
      ) break;
      for (const k of w.checked) checked.add(k);
      for (const k of w.written) written.add(k);
      checks += w.checks;
      mutations += w.mutations;
      keyBytes += w.keyBytes;
      valueBytes += w.valueBytes;
    }
    return this.#waiting.splice(0, n);
  }

  async #commit(batch: Waiting[]): Promise<void> {
    if (batch.length > 1) {
      try {
        const op = this.#kv.atomic();
        for (const { write } of batch) write.applyTo(op);
        const result = await op.commit();
        if (result.ok) {
          for (const { done } of batch) done.resolve(result);
          return;
        }
      } catch {
        // Which write broke the merged atomic is unknown: each learns its own fate below.
      }
    }
    await Promise.all(batch.map(async ({ write, done }) => {
      try {
        done.resolve(await write.commitAlone());
      } catch (error) {
        done.reject(error);
      }
    }));
  }
}

const committers = new WeakMap<Deno.Kv, Committer>();

function committerOf(kv: Deno.Kv): Committer {
  let committer = committers.get(kv);
  if (committer === undefined) committers.set(kv, committer = new Committer(kv));
  return committer;
}

function overlaps(a: Set<string>, b: Set<string>): boolean {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  for (const k of small) if (large.has(k)) return true;
  return false;
}

/**
 * An upper estimate of what `value` takes once serialized (two bytes per UTF-16 unit), walking
 * objects and arrays until the estimate passes `cap`.
 */
export function roughSize(value: unknown, cap: number): number {
  let total = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && total <= cap) {
    const v = stack.pop();
    if (typeof v === "string") total += 8 + v.length * 2;
    else if (v instanceof Uint8Array) total += 8 + v.byteLength;
    else if (v !== null && typeof v === "object") {
      total += 8;
      if (Array.isArray(v)) { for (const item of v) stack.push(item); }
      else {
        for (const k in v) {
          total += 8 + k.length * 2;
          stack.push((v as Record<string, unknown>)[k]);
        }
      }
    } else total += 16;
  }
  return total;
}
