/**
 * Batched writes to one hot key. Writers of a key in this process already take turns (the key's
 * write queue); with `commitBatched`, whoever's turn comes also carries every write waiting behind
 * it, in arrival order, in one attempt and one atomic. Sixteen writers of one project then cost
 * one commit per turn, not sixteen in a row, so a hot key costs about what spread keys cost.
 */

import { type Attempt, commitWithRetry, type WriteQueue } from "./kv.ts";
import { keyText } from "./group_commit.ts";
import { speedOn } from "./speed_switches.ts";

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
  if (!speedOn("key_batch")) return commitAlone(queue, item, attempt);
  const waiting = waitingOn<I, R>(queue);
  const mine: Pending<I, R> = { item, taken: false, done: Promise.withResolvers<R>() };
  // Settled by whichever turn carries it, maybe before this caller awaits it.
  mine.done.promise.catch(() => {});
  waiting.push(mine);
  let batch: Pending<I, R>[] | undefined;
  let tries = 0;
  try {
    await commitWithRetry(async () => {
      if (batch === undefined) {
        // An earlier turn carried this write with its own, and settles it.
        if (mine.taken) return { value: undefined };
        batch = take(queue, waiting, fits);
      }
      const taken = batch;
      const tried = await attempt(taken.map((p) => p.item), tries++);
      const settle = () => taken.forEach((p, i) => settleOne(p, tried.value[i]));
      if (tried.op === undefined) {
        settle();
        return { value: undefined };
      }
      return {
        op: tried.op,
        value: undefined,
        committed: (versionstamp) => {
          settle();
          tried.committed?.(versionstamp);
        },
      };
    }, queue);
  } catch (error) {
    for (const p of batch ?? []) p.done.reject(error);
    if (batch === undefined) throw error;
  }
  return await mine.done.promise;
}

/** `item` committed in a batch of its own (the bench's `key_batch` switch off). */
function commitAlone<I, R>(
  queue: WriteQueue,
  item: I,
  attempt: (items: readonly I[], tries: number) => Promise<BatchAttempt<R>>,
): Promise<R> {
  let tries = 0;
  return commitWithRetry(async () => {
    const tried = await attempt([item], tries++);
    const outcome = tried.value[0];
    if (outcome === undefined) throw new Error("a batch attempt gave no outcome for a write");
    if ("error" in outcome) throw outcome.error;
    return { op: tried.op, value: outcome.value, committed: tried.committed };
  }, queue);
}

function settleOne<I, R>(p: Pending<I, R>, outcome: Outcome<R> | undefined): void {
  if (outcome === undefined) {
    p.done.reject(new Error("a batch attempt gave no outcome for a write"));
  } else if ("error" in outcome) p.done.reject(outcome.error);
  else p.done.resolve(outcome.value);
}

function waitingOn<I, R>(queue: WriteQueue): Pending<I, R>[] {
  let byKey = waitingByKv.get(queue.kv);
  if (byKey === undefined) waitingByKv.set(queue.kv, byKey = new Map());
  const id = keyText(queue.key);
  let waiting = byKey.get(id);
  if (waiting === undefined) byKey.set(id, waiting = []);
  return waiting as Pending<I, R>[];
}

/** Takes the waiting writes, oldest first, as many as `fits` lets into one batch. */
function take<I, R>(
  queue: WriteQueue,
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
  if (waiting.length === 0) waitingByKv.get(queue.kv)?.delete(keyText(queue.key));
  return batch;
}
