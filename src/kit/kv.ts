/**
 * What every store module shares: opening KV, committing with retries, ids, errors and pages.
 * This is the only place that knows the retry rules.
 */

import { atomic, keyText, MAX_ATOMIC_CHECKS, roughSize } from "./group_commit.ts";
import { anyDeclared, damagedMessage, storedProblem } from "./record_shapes.ts";
import { speedOn } from "./speed_switches.ts";
import { base64url } from "./base64url.ts";

/**
 * What went wrong, so the HTTP layer can choose a status without parsing messages:
 * bad input, an unknown id, a state that forbids the change (already resolved, already
 * accepted), a value over a size limit, a store or list that is full, too much contention
 * to commit in time, or a stored record of the wrong shape (see record_shapes.ts).
 */
export type ErrorKind =
  | "invalid"
  | "not_found"
  | "conflict"
  | "too_large"
  | "full"
  | "busy"
  | "damaged";

/**
 * The one error class of the server: a plain `Error` whose message says what was wrong and what
 * is allowed, with a `kind` (mapped to an HTTP status in one table) and, where a toolset names its
 * failures, a machine `code` that also starts the message (`SEQUENCE_NOT_FOUND: …`).
 */
export class AppError extends Error {
  /** The class of failure, mapped to an HTTP status in one place. */
  readonly kind: ErrorKind;
  /** A toolset's name for this failure, when it has one. */
  readonly code?: string;
  constructor(kind: ErrorKind, message: string, code?: string) {
    super(code === undefined ? message : `${code}: ${message}`);
    this.name = "AppError";
    this.kind = kind;
    if (code !== undefined) this.code = code;
  }
}

/** Throws a `AppError` of kind `invalid`. */
export function invalid(message: string): never {
  throw new AppError("invalid", message);
}

/**
 * Opens KV at `path`, or the platform's default database when it is `undefined`. A file path
 * gets its missing folder created; a KV Connect URL (`http://` or `https://`, a self-hosted
 * `denokv` or a Deploy database, authorised by `DENO_KV_ACCESS_TOKEN`) is passed on untouched.
 */
export async function openKv(path: string | undefined): Promise<Deno.Kv> {
  if (path === undefined) return await Deno.openKv();
  const folder = kvFolder(path);
  if (folder !== undefined) await Deno.mkdir(folder, { recursive: true });
  // Two processes creating one new file at once can meet SQLite's lock while it sets up.
  return await retryLocked(() => Deno.openKv(path));
}

/** True when `path` is a KV Connect URL rather than a file. */
export function isKvConnectUrl(path: string): boolean {
  return /^https?:\/\//i.test(path);
}

/** The folder `openKv` must create for `path`, or `undefined` (memory, a URL, the current folder). */
export function kvFolder(path: string): string | undefined {
  if (path === ":memory:" || isKvConnectUrl(path)) return undefined;
  const slash = path.lastIndexOf("/");
  return slash > 0 ? path.slice(0, slash) : undefined;
}

/** One try of a write: the operation to commit (if any) and what to return once it lands. */
export interface Attempt<T> {
  op?: Deno.AtomicOperation;
  value: T;
  /** Called with the versionstamp of the commit that landed (for callers that cache state). */
  committed?: (versionstamp: string) => void;
}

/** How long the retry loop keeps trying before it gives up. */
export const RETRY_BUDGET_MS = 20_000;

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

/** The key a write is about, so writes to it from this process take turns (see `inKeyQueue`). */
export interface WriteQueue {
  kv: Deno.Kv;
  key: Deno.KvKey;
}

/**
 * Runs `attempt` until its atomic commits. `attempt` must read what it checks afresh each time;
 * a failed check, a `StaleRead` from the attempt, or a `database is locked` throw (another
 * process holds the local file; nothing was applied) is retried with jittered exponential backoff.
 * With `queue`, the whole loop waits for earlier writes to that key from this process, so
 * concurrent callers here never race each other; only other processes can make it retry.
 * An attempt must never start another write queued on the same key (it would wait for itself).
 */
export function commitWithRetry<T>(
  attempt: () => Promise<Attempt<T>>,
  queue?: WriteQueue,
): Promise<T> {
  return queue === undefined || !speedOn("key_queue")
    ? commitLoop(attempt)
    : inKeyQueue(queue.kv, queue.key, () => commitLoop(attempt));
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

async function commitLoop<T>(attempt: () => Promise<Attempt<T>>): Promise<T> {
  const started = Date.now();
  for (let round = 0;; round++) {
    const tried = await retryLocked(attempt).catch((error) => {
      if (error instanceof StaleRead) return undefined;
      throw error;
    });
    if (tried !== undefined) {
      const { op, value, committed: onCommit } = tried;
      if (op === undefined) return value;
      const committed = await retryLocked(() => op.commit()).catch((error) => {
        throw atomicTooLarge(error) ?? error;
      });
      if (committed.ok) {
        onCommit?.(committed.versionstamp);
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
 * The tail of each key's queue, per KV handle. The queues belong to the handle (a WeakMap lets
 * them go with it), so no store function needs another parameter to share them.
 */
const keyQueues = new WeakMap<Deno.Kv, Map<string, Promise<void>>>();

/**
 * Runs `work` once every earlier `work` queued on `key` of `kv` in this process has settled, so
 * writers of one hot key take turns instead of reading the same version and failing each other's
 * checks. Different keys never wait for each other.
 */
export function inKeyQueue<T>(kv: Deno.Kv, key: Deno.KvKey, work: () => Promise<T>): Promise<T> {
  let queues = keyQueues.get(kv);
  if (queues === undefined) keyQueues.set(kv, queues = new Map());
  const id = keyText(key);
  const before = queues.get(id);
  const run = before === undefined ? work() : before.then(() => work());
  const tail = run.then(ignore, ignore);
  queues.set(id, tail);
  void tail.then(() => {
    if (queues.get(id) === tail) queues.delete(id);
  });
  return run;
}

function ignore(): void {}

/** Reads or commits, retrying while a local KV file is locked by another process. */
export async function retryLocked<T>(work: () => Promise<T>): Promise<T> {
  const started = Date.now();
  for (let round = 0;; round++) {
    try {
      return await work();
    } catch (error) {
      if (!isLocked(error) || Date.now() - started > RETRY_BUDGET_MS) throw error;
      await backoff(round);
    }
  }
}

function isLocked(error: unknown): boolean {
  return error instanceof Error && /database is locked|SQLITE_BUSY/i.test(error.message);
}

function backoff(round: number): Promise<void> {
  const cap = Math.min(200, 2 ** Math.min(round, 8));
  return new Promise((resolve) => setTimeout(resolve, 1 + Math.random() * cap));
}

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
/** Last ULID handed out by this process, so ids made in one millisecond still sort in order. */
const lastUlid = { time: -1, random: new Uint8Array(10) };

/** A monotonic ULID: 48 bits of milliseconds then 80 random bits, sortable as text. */
export function ulid(now: number = Date.now()): string {
  if (now <= lastUlid.time) {
    incrementRandom(lastUlid.random);
  } else {
    lastUlid.time = now;
    crypto.getRandomValues(lastUlid.random);
  }
  let time = "";
  let t = lastUlid.time;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  return time + encodeRandom(lastUlid.random);
}

/**
 * A ULID of a past time `ms` with fresh random bits, outside the monotonic sequence `ulid()`
 * keeps: it sorts among others by that time (an imported conversation by when it happened).
 */
export function ulidAt(ms: number): string {
  let time = "";
  let t = Math.max(0, Math.floor(ms));
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  return time + encodeRandom(crypto.getRandomValues(new Uint8Array(10)));
}

function incrementRandom(bytes: Uint8Array): void {
  for (let i = bytes.length - 1; i >= 0; i--) {
    if (bytes[i] < 255) {
      bytes[i]++;
      return;
    }
    bytes[i] = 0;
  }
}

function encodeRandom(bytes: Uint8Array): string {
  let bits = 0n;
  for (const b of bytes) bits = (bits << 8n) | BigInt(b);
  let out = "";
  for (let i = 0; i < 16; i++) {
    out = CROCKFORD[Number(bits & 31n)] + out;
    bits >>= 5n;
  }
  return out;
}

/** True when `id` has the shape of a ULID. */
export function isUlid(id: string): boolean {
  return /^[0-9A-HJKMNP-TV-Z]{26}$/.test(id);
}

/** `bytes` random bytes as base64url text without padding. */
export function randomToken(bytes: number): string {
  return base64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

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

/*
 * Reads. A local KV file held by another process makes a read throw `database is locked`; these
 * helpers retry that (as commits are retried), so no store module chooses whether to. Each
 * entry they return is checked against its family's declared shape (record_shapes.ts): a
 * damaged record is refused naming its key, never handed to code that would trip over it.
 */

/** Throws a `damaged` AppError for an entry of the wrong shape; returns it otherwise. */
export function checkStored<E extends { key: Deno.KvKey; value: unknown }>(entry: E): E {
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

/** The time `ms` (now when omitted: a store with its own clock passes it) as ISO-8601 UTC. */
export function nowIso(ms: number = Date.now()): string {
  return new Date(ms).toISOString();
}

/** Bytes of values we let one batch write, well under KV's 800 KiB per atomic. */
const BATCH_BYTES = 400 * 1024;

/** Deletes every key under `prefix`, `batch` keys per atomic; returns how many it deleted. */
export async function deleteUnder(
  kv: Deno.Kv,
  prefix: Deno.KvKey,
  batch = 500,
): Promise<number> {
  let deleted = 0;
  for (;;) {
    const keys: Deno.KvKey[] = [];
    for await (const entry of listEntries(kv, { prefix }, { limit: batch })) keys.push(entry.key);
    if (keys.length === 0) return deleted;
    const op = atomic(kv);
    for (const key of keys) op.delete(key);
    const res = await retryLocked(() => op.commit());
    if (!res.ok) throw new AppError("busy", "Delete batch failed to commit; try again");
    deleted += keys.length;
  }
}

/**
 * Rewrites every key under `prefixes` unchanged but with a new expiry (`undefined`: never
 * expire). Each key is checked against the version just read, so a key deleted or replaced
 * meanwhile is never brought back or overwritten with an old value.
 */
export async function resetExpiry(
  kv: Deno.Kv,
  prefixes: Deno.KvKey[],
  expireIn: number | undefined,
): Promise<void> {
  const options = expireIn === undefined ? undefined : { expireIn };
  for (const prefix of prefixes) {
    let keys: Deno.KvKey[] = [];
    let bytes = 0;
    const flush = async () => {
      const batch = keys;
      keys = [];
      bytes = 0;
      await commitWithRetry(async () => {
        const op = atomic(kv);
        for (const entry of await getAll(kv, batch)) {
          if (entry.versionstamp === null) continue;
          op.check(entry).set(entry.key, entry.value, options);
        }
        return { op, value: undefined };
      });
    };
    for await (const entry of listEntries(kv, { prefix })) {
      const size = roughSize(entry.value, BATCH_BYTES);
      if (keys.length === MAX_ATOMIC_CHECKS || (keys.length > 0 && bytes + size > BATCH_BYTES)) {
        await flush();
      }
      keys.push(entry.key);
      bytes += size;
    }
    if (keys.length > 0) await flush();
  }
}
