/**
 * Reads. A local KV file held by another process makes a read throw `database is locked`; these
 * helpers retry that (as commits are retried), so no store module chooses whether to. Each
 * entry they return is checked against its family's declared shape (record_shapes.ts): a
 * damaged record is refused naming its key, never handed to code that would trip over it.
 */

import { AppError, invalid } from "./errors.ts";
import { anyDeclared, damagedMessage, storedProblem } from "./record_shapes.ts";
import { backoff, isLocked, RETRY_BUDGET_MS, retryLocked } from "./retry.ts";

/** One page of a prefix list. */
export interface Page<T> {
  items: T[];
  /** Opaque cursor for the next page, or `null` at the end. */
  nextCursor: string | null;
  hasMore: boolean;
  /** The cursor after each item, so a page cut short (to a size budget) can still read on. */
  cursors: string[];
}

/** Lists one page under `prefix`, resuming after `cursor`; says whether more remain. */
export async function listPage<T>(
  kv: Deno.Kv,
  prefix: Deno.KvKey,
  options: { limit: number; cursor?: string; reverse?: boolean },
): Promise<Page<Deno.KvEntry<T>>> {
  const read = async (): Promise<Page<Deno.KvEntry<T>>> => {
    const iter = kv.list<T>({ prefix }, {
      cursor: options.cursor || undefined,
      reverse: options.reverse,
      limit: options.limit + 1,
    });
    const items: Deno.KvEntry<T>[] = [];
    const cursors: string[] = [];
    for await (const entry of iter) {
      if (items.length === options.limit) {
        return { items, nextCursor: cursors.at(-1) ?? null, hasMore: true, cursors };
      }
      items.push(checkStored(entry));
      cursors.push(iter.cursor);
    }
    return { items, nextCursor: null, hasMore: false, cursors };
  };
  try {
    return await retryLocked(read);
  } catch (error) {
    if (options.cursor && error instanceof Error && /cursor/i.test(error.message)) {
      invalid("cursor is not valid here: pass the next_cursor of the previous page unchanged");
    }
    throw error;
  }
}

/** Throws a `damaged` AppError for an entry of the wrong shape; returns it otherwise. */
function checkStored<E extends { key: Deno.KvKey; value: unknown }>(entry: E): E {
  if (entry.value === null || !anyDeclared()) return entry;
  const problem = storedProblem(entry.key, entry.value);
  if (problem !== undefined) throw new AppError("damaged", damagedMessage(entry.key, problem));
  return entry;
}

function checkAll<E extends readonly { key: Deno.KvKey; value: unknown }[]>(entries: E): E {
  for (const entry of entries) checkStored(entry);
  return entries;
}

/** Reads one key. */
export async function readKey<T>(kv: Deno.Kv, key: Deno.KvKey): Promise<Deno.KvEntryMaybe<T>> {
  return checkStored(await retryLocked(() => kv.get<T>(key)));
}

/** Reads up to ten keys at once (one `getMany`), in order. */
export function readKeys<T extends readonly unknown[]>(
  kv: Deno.Kv,
  keys: readonly [...{ [K in keyof T]: Deno.KvKey }],
): Promise<{ [K in keyof T]: Deno.KvEntryMaybe<T[K]> }> {
  return retryLocked(() => kv.getMany<T>(keys)).then(checkAll);
}

/** Reads many keys, ten at a time (the most one `getMany` takes), in order. */
export async function getAll<T>(kv: Deno.Kv, keys: Deno.KvKey[]): Promise<Deno.KvEntryMaybe<T>[]> {
  const batches: Promise<Deno.KvEntryMaybe<T>[]>[] = [];
  for (let i = 0; i < keys.length; i += 10) {
    batches.push(retryLocked(() => kv.getMany<T[]>(keys.slice(i, i + 10))));
  }
  return checkAll((await Promise.all(batches)).flat());
}

/**
 * Every entry `selector` matches, in key order (reversed with `options.reverse`), streamed: a
 * locked read resumes after the last entry yielded, so nothing is skipped or repeated.
 */
export async function* listEntries<T>(
  kv: Deno.Kv,
  selector: Deno.KvListSelector,
  options: Deno.KvListOptions = {},
): AsyncGenerator<Deno.KvEntry<T>> {
  const started = Date.now();
  let left = options.limit;
  // A locked round resumes after the last key it yielded. That key is kept rather than the
  // iterator's cursor: encoding a cursor per entry cost more than reading the entry.
  let last: Deno.KvKey | undefined;
  for (let round = 0;; round++) {
    if (left === 0) return;
    const iter = last === undefined
      ? kv.list<T>(selector, { ...options, limit: left })
      : kv.list<T>(resumeAfter(selector, last, options.reverse === true), {
        ...options,
        cursor: undefined,
        limit: left === undefined ? undefined : left + 1,
      });
    const skip = last;
    try {
      for await (const entry of iter) {
        if (skip !== undefined && sameKey(entry.key, skip)) continue;
        if (left !== undefined) left--;
        last = entry.key;
        yield checkStored(entry);
        if (left === 0) return;
      }
      return;
    } catch (error) {
      if (!isLocked(error) || Date.now() - started > RETRY_BUDGET_MS) throw error;
      await backoff(round);
    }
  }
}

/** `selector` narrowed to the keys after `last` in list order (`last` itself may come again). */
function resumeAfter(
  selector: Deno.KvListSelector,
  last: Deno.KvKey,
  reverse: boolean,
): Deno.KvListSelector {
  const sel = selector as { prefix?: Deno.KvKey; start?: Deno.KvKey; end?: Deno.KvKey };
  if (reverse) {
    if (sel.prefix !== undefined && sel.start === undefined) {
      return { prefix: sel.prefix, end: last };
    }
    return { start: sel.start ?? sel.prefix!, end: last };
  }
  if (sel.prefix !== undefined && sel.end === undefined) return { prefix: sel.prefix, start: last };
  return { start: last, end: sel.end! };
}

function sameKey(a: Deno.KvKey, b: Deno.KvKey): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    if (x instanceof Uint8Array && y instanceof Uint8Array) {
      if (x.length !== y.length || x.some((byte, n) => byte !== y[n])) return false;
    } else if (typeof x !== typeof y || x !== y) {
      return false;
    }
  }
  return true;
}

/** Every entry `selector` matches, collected (for lists bounded by a limit or by design). */
export function listAll<T>(
  kv: Deno.Kv,
  selector: Deno.KvListSelector,
  options: Deno.KvListOptions = {},
): Promise<Deno.KvEntry<T>[]> {
  return Array.fromAsync(listEntries<T>(kv, selector, options));
}
