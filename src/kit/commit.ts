/**
 * The one way a write goes down to KV. A store builds its atomic with `atomic(kv)` (its checks
 * and mutations) in an attempt and hands the attempt here: `commitWithRetry` for one write,
 * `commitBatched` for a write to a hot key whose turn may carry the writes waiting behind it,
 * `commitOnce` for a write whose failed check the caller answers itself. Batched writes to one
 * key take turns on it; a failed check, a `StaleRead` or a locked file is retried within
 * `RETRY_BUDGET_MS`. Once a commit lands, the notices the attempt asked for are told from here,
 * so the write never climbs back up through the store that built it.
 */

import { AppError } from "./errors.ts";
import { keyText } from "./key_text.ts";
import { backoff, RETRY_BUDGET_MS, retryLocked } from "./retry.ts";
import { speedOn } from "./speed_switches.ts";

/**
 * A new atomic operation on `kv`: the one place a write's atomic is made, so a mechanism every
 * write needs has one place to go. Group commit (every waiting write of the process committed as
 * one atomic) lived here and was removed: it measured under 1.5× on its goal (bench/README.md).
 */
export function atomic(kv: Deno.Kv): Deno.AtomicOperation {
  return kv.atomic();
}

/**
 * Who hears of a write once it lands: this process's notice bus (none in store tests that do not
 * listen) and the topics the write bumped in its own atomic.
 */
export interface Tell {
  bus: { committed(topics: Iterable<string>, versionstamp: string): void } | undefined;
  topics: readonly string[];
}

/** One try of a write: the operation to commit (if any) and what to return once it lands. */
export interface Attempt<T> {
  op?: Deno.AtomicOperation;
  value: T;
  /** The notices to tell once the commit lands (told here, after `committed`). */
  tell?: Tell;
  /** Called with the versionstamp of the commit that landed (for callers that cache state). */
  committed?: (versionstamp: string) => void;
}

/**
 * Thrown by an attempt whose reads contradict each other (a concurrent writer moved on between
 * two of them), so `commitWithRetry` tries again instead of failing the caller.
 */
export class StaleRead extends Error {
  constructor(what: string) {
    super(`stale read: ${what}`);
    this.name = "StaleRead";
  }
}

/** The key batched writes are about: they take turns on it (see `commitBatched`). */
export interface WriteQueue {
  kv: Deno.Kv;
  key: Deno.KvKey;
}

/**
 * Runs `attempt` until its atomic commits. `attempt` must read what it checks afresh each time;
 * a failed check, a `StaleRead` from the attempt, or a `database is locked` throw (another
 * process holds the local file; nothing was applied) is retried with jittered exponential backoff.
 * Writers of one key in this process do not take turns (a queue per key was measured under 1.5×
 * on a hot key, bench/README.md): a check lost to another writer is simply tried again.
 */
export async function commitWithRetry<T>(attempt: () => Promise<Attempt<T>>): Promise<T> {
  const started = Date.now();
  for (let round = 0;; round++) {
    const tried = await retryLocked(attempt).catch((error) => {
      if (error instanceof StaleRead) return undefined;
      throw error;
    });
    if (tried !== undefined) {
      const { op, value } = tried;
      if (op === undefined) return value;
      const landed = await commitOnce(op).catch((error) => {
        throw atomicTooLarge(error) ?? error;
      });
      if (landed.ok) {
        tried.committed?.(landed.versionstamp);
        tried.tell?.bus?.committed(tried.tell.topics, landed.versionstamp);
        return value;
      }
    }
    if (Date.now() - started > RETRY_BUDGET_MS) {
      throw new AppError(
        "busy",
        `Write gave up after ${
          round + 1
        } conflicting attempts in ${RETRY_BUDGET_MS} ms: too many concurrent writers; try again`,
      );
    }
    await backoff(round);
  }
}

/**
 * Commits `op` once, retrying only while a local KV file is locked: for a write whose failed
 * check the caller answers itself (a lease lost, a key that appeared meanwhile).
 */
export function commitOnce(
  op: Deno.AtomicOperation,
): Promise<Deno.KvCommitResult | Deno.KvCommitError> {
  return retryLocked(() => op.commit());
}

/**
 * KV's refusal of an atomic past its byte limits, as the clear error a caller can act on: every
 * item of a call may be within its own limits while the call's atomic is not. Nothing was written.
 */
function atomicTooLarge(error: unknown): AppError | undefined {
  const found = error instanceof Error &&
    /^Total (mutation|key) size too large \(max (\d+) bytes\)/.exec(error.message);
  if (!found) return undefined;
  const what = found[1] === "key" ? "keys" : "keys and values";
  return new AppError(
    "too_large",
    `This change is larger than one atomic KV write holds (its ${what} take at most ${
      found[2]
    } bytes; nothing was written): send fewer items per call`,
  );
}

/**
 * The tail of each key's turns, per KV handle, by the key's text. The turns belong to the
 * handle (a WeakMap lets them go with it), so no store function needs another parameter.
 */
const keyTurns = new WeakMap<Deno.Kv, Map<string, Promise<void>>>();

/**
 * Runs `work` once every earlier `work` queued on key `id` (its `keyText`) of `kv` in this
 * process has settled: the turns of `commitBatched`. Different keys never wait for each other.
 */
function inTurn<T>(kv: Deno.Kv, id: string, work: () => Promise<T>): Promise<T> {
  let turns = keyTurns.get(kv);
  if (turns === undefined) keyTurns.set(kv, turns = new Map());
  const before = turns.get(id);
  const run = before === undefined ? work() : before.then(() => work());
  const tail = run.then(ignore, ignore);
  turns.set(id, tail);
  void tail.then(() => {
    if (turns.get(id) === tail) turns.delete(id);
  });
  return run;
}

function ignore(): void {}

/*
 * Batched writes to one hot key. Writers of a key in this process take turns on it, and whoever's
 * turn comes carries every write waiting behind it, in arrival order, in one attempt and one
 * atomic. Sixteen writers of one project then cost one
 * commit per turn, not sixteen in a row, so a hot key costs about what spread keys cost.
 */

/** What one write of a batch came to: its value, or the error that refused it (alone). */
export type Outcome<R> = { value: R } | { error: unknown };

/** One batch's attempt: what to commit, and one outcome per item, in the items' order. */
export type BatchAttempt<R> = Attempt<Outcome<R>[]>;

/** Says whether `next` may join `batch` (the first item always goes). */
export type BatchFits<I> = (batch: readonly I[], next: I) => boolean;

interface Pending<I, R> {
  item: I;
  /** Set once a turn has taken this write into its batch. */
  taken: boolean;
  done: PromiseWithResolvers<R>;
}

/** The writes waiting for a turn, per KV handle, by their key's text. */
const waitingByKv = new WeakMap<Deno.Kv, Map<string, Pending<unknown, unknown>[]>>();

/**
 * Commits `item` in a batch with the other writes waiting on `queue`'s key. `attempt` gets the
 * batch's items and how many tries came before (0 on the first: a cached read is only safe
 * then), and must read what it checks afresh on later tries. An attempt may refuse single items
 * (an `{ error }` outcome) and still commit the others; a throw fails the whole batch.
 */
export async function commitBatched<I, R>(
  queue: WriteQueue,
  item: I,
  attempt: (items: readonly I[], tries: number) => Promise<BatchAttempt<R>>,
  fits: BatchFits<I>,
): Promise<R> {
  if (!speedOn("key_batch")) return commitAlone(item, attempt);
  const id = keyText(queue.key);
  const waiting = waitingOn<I, R>(queue.kv, id);
  const mine: Pending<I, R> = { item, taken: false, done: Promise.withResolvers<R>() };
  // Settled by whichever turn carries it, maybe before this caller awaits it.
  mine.done.promise.catch(() => {});
  waiting.push(mine);
  let batch: Pending<I, R>[] | undefined;
  let tries = 0;
  try {
    await inTurn(queue.kv, id, () =>
      commitWithRetry(async () => {
        if (batch === undefined) {
          // An earlier turn carried this write with its own, and settles it.
          if (mine.taken) return { value: undefined };
          batch = take(queue.kv, id, waiting, fits);
        }
        const taken = batch;
        const tried = await attempt(taken.map((p) => p.item), tries++);
        const settle = () => taken.forEach((p, i) => settleOne(p, tried.value[i]));
        if (tried.op === undefined) {
          settle();
          return { value: undefined };
        }
        const committed = (versionstamp: string) => {
          settle();
          tried.committed?.(versionstamp);
        };
        return { op: tried.op, value: undefined, tell: tried.tell, committed };
      }));
  } catch (error) {
    for (const p of batch ?? []) p.done.reject(error);
    if (batch === undefined) throw error;
  }
  return await mine.done.promise;
}

/** `item` committed in a batch of its own, without turns (the bench's `key_batch` switch off). */
function commitAlone<I, R>(
  item: I,
  attempt: (items: readonly I[], tries: number) => Promise<BatchAttempt<R>>,
): Promise<R> {
  let tries = 0;
  return commitWithRetry(async () => {
    const tried = await attempt([item], tries++);
    const outcome = tried.value[0];
    if (outcome === undefined) throw new Error("a batch attempt gave no outcome for a write");
    if ("error" in outcome) throw outcome.error;
    return { ...tried, value: outcome.value };
  });
}

function settleOne<I, R>(p: Pending<I, R>, outcome: Outcome<R> | undefined): void {
  if (outcome === undefined) {
    p.done.reject(new Error("a batch attempt gave no outcome for a write"));
  } else if ("error" in outcome) p.done.reject(outcome.error);
  else p.done.resolve(outcome.value);
}

function waitingOn<I, R>(kv: Deno.Kv, id: string): Pending<I, R>[] {
  let byKey = waitingByKv.get(kv);
  if (byKey === undefined) waitingByKv.set(kv, byKey = new Map());
  let waiting = byKey.get(id);
  if (waiting === undefined) byKey.set(id, waiting = []);
  return waiting as Pending<I, R>[];
}

/** Takes the waiting writes, oldest first, as many as `fits` lets into one batch. */
function take<I, R>(
  kv: Deno.Kv,
  id: string,
  waiting: Pending<I, R>[],
  fits: BatchFits<I>,
): Pending<I, R>[] {
  const items: I[] = [];
  let n = 0;
  while (n < waiting.length && (n === 0 || fits(items, waiting[n].item))) {
    items.push(waiting[n].item);
    n++;
  }
  const batch = waiting.splice(0, n);
  for (const p of batch) p.taken = true;
  if (waiting.length === 0) waitingByKv.get(kv)?.delete(id);
  return batch;
}
