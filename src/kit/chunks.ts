/**
 * Texts larger than one KV value, and writes larger than one atomic.
 *
 * Deno KV takes values up to 65,536 bytes and atomics up to 819,200 bytes, 1,000 mutations and
 * 81,920 bytes of keys. A record that owns a large text stores it as chunks under fresh keys and
 * lists them; readers only follow the list, so chunks nobody lists are invisible. Writes that do
 * not fit the record's own atomic are *staged*: written first under a pending-delete record that
 * says "delete these keys unless adopted", then adopted by the record's atomic, which deletes the
 * pending record (with a versionstamp check). Keys a commit leaves behind (old chunks) are
 * deleted in that commit when few, or handed to a pending-delete record written by it and
 * collected right after; anything a crash leaves is collected by `sweepPendingDeletes`.
 */

import { atomic, commitOnce } from "./commit.ts";
import { ulid } from "./ids.ts";
import { getAll, listAll, listEntries, readKey } from "./reads.ts";
import { retryLocked } from "./retry.ts";

/** Bytes in one chunk: below the 65,536-byte value limit with room for the encoding. */
export const CHUNK_BYTES = 60_000;
/** Most bytes of staged values written inline in the adopting atomic instead of staged. */
export const INLINE_BYTES = 360_000;
/** Most bytes of values in one staging atomic (KV allows 819,200 per atomic, keys included). */
export const STAGE_BATCH_BYTES = 600_000;
/** Most keys in one staging or deleting atomic: keeps keys under KV's 81,920-byte budget. */
export const BATCH_KEYS = 200;
/** Most deletes put straight into an atomic; more go to a pending-delete record. */
export const INLINE_DELETES = 60;
/** How long staged writes wait for their adoption before a sweep may delete them. */
export const STAGE_TTL_MS = 10 * 60_000;

/** A record's pointer to one chunk of its text. */
export interface ChunkRef {
  id: string;
  bytes: number;
}

/** Keys sharing everything but their last part, stored compactly. */
export interface KeyGroup {
  prefix: Deno.KvKey;
  last: Deno.KvKeyPart[];
}

/** Keys to delete once `after` (ms since epoch) has passed, unless the record is gone by then. */
export interface PendingDelete {
  groups: KeyGroup[];
  after: number;
  /** `staged`: writes awaiting adoption; `garbage`: keys no record lists any more. */
  kind: "staged" | "garbage";
}

/** Most keys in one pending-delete record, so it stays far below the 64 KiB value limit. */
export const PENDING_KEYS_MAX = 1500;

/** Key of one pending-delete record. */
export function pendingDeleteKey(id: string): Deno.KvKey {
  return ["pending_delete", id];
}

/** Prefix of all pending-delete records, oldest first. */
export function pendingDeletePrefix(): Deno.KvKey {
  return ["pending_delete"];
}

/** Splits `bytes` into chunks of at most `size` bytes (views, not copies). */
export function splitBytes(bytes: Uint8Array, size: number = CHUNK_BYTES): Uint8Array[] {
  const parts: Uint8Array[] = [];
  for (let at = 0; at < bytes.byteLength; at += size) {
    parts.push(bytes.subarray(at, Math.min(bytes.byteLength, at + size)));
  }
  return parts;
}

/** Joins byte arrays into one. */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  const total = parts.reduce((n, p) => n + p.byteLength, 0);
  const out = new Uint8Array(total);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}

/** An upper bound of the bytes KV spends on `value` (strings may be stored as UTF-16). */
export function approxValueBytes(value: unknown): number {
  if (value instanceof Uint8Array) return value.byteLength + 16;
  if (typeof value === "string") return value.length * 2 + 16;
  return JSON.stringify(value).length * 2 + 64;
}

/** Writes that become visible only when the atomic of their owning record adopts them. */
export interface Staged {
  /** Bytes of values written inline by `adopt` (0 when they were staged beforehand). */
  readonly inlineBytes: number;
  /** Adds the writes (inline) or the pending record's check and delete (staged) to `op`. */
  adopt(op: Deno.AtomicOperation): Deno.AtomicOperation;
  /** Deletes staged writes that will never be adopted; safe if they were adopted after all. */
  abandon(): Promise<void>;
}

/** Options of `stageWrites`. */
export interface StageOptions {
  /** Largest total written inline by `adopt` instead of staged now (default `INLINE_BYTES`). */
  inlineBytes?: number;
  /** Called after each staging atomic with how many of them are done. */
  onBatch?: (done: number, total: number) => Promise<void> | void;
}

/**
 * Prepares `entries` for adoption by a later atomic. Small sets are kept for `adopt` to write
 * inline; larger ones are written now in batches under a pending-delete record.
 */
export async function stageWrites(
  kv: Deno.Kv,
  entries: readonly (readonly [Deno.KvKey, unknown])[],
  options: StageOptions = {},
): Promise<Staged> {
  const total = entries.reduce((n, [, value]) => n + approxValueBytes(value), 0);
  if (total <= (options.inlineBytes ?? INLINE_BYTES)) {
    return {
      inlineBytes: total,
      adopt(op) {
        for (const [key, value] of entries) op.set(key, value);
        return op;
      },
      abandon: () => Promise.resolve(),
    };
  }
  const keys = entries.map(([key]) => key);
  if (keys.length > PENDING_KEYS_MAX) {
    throw new Error(`Cannot stage ${keys.length} writes at once; at most ${PENDING_KEYS_MAX}`);
  }
  const batches = batchEntries(entries);
  const id = ulid();
  const record: PendingDelete = {
    groups: groupKeys(keys),
    after: Date.now() + STAGE_TTL_MS,
    kind: "staged",
  };
  let versionstamp: string | null = null;
  const abandon = () => convertToGarbage(kv, id);
  try {
    for (let i = 0; i < batches.length; i++) {
      const op = atomic(kv);
      if (i === 0) {
        op.check({ key: pendingDeleteKey(id), versionstamp: null });
        op.set(pendingDeleteKey(id), record);
      }
      for (const [key, value] of batches[i]) op.set(key, value);
      const res = await commitOnce(op);
      if (!res.ok) throw new Error("staging a new pending-delete record failed its check");
      if (i === 0) versionstamp = res.versionstamp;
      await options.onBatch?.(i + 1, batches.length);
    }
  } catch (error) {
    await abandon().catch(() => {});
    throw error;
  }
  return {
    inlineBytes: 0,
    adopt(op) {
      return op.check({ key: pendingDeleteKey(id), versionstamp }).delete(pendingDeleteKey(id));
    },
    abandon,
  };
}

/**
 * Deletes `keys` as part of `op` when they are few; otherwise `op` writes pending-delete records
 * for them. Call the returned function after `op` committed to collect them at once.
 */
export function deleteWith(
  kv: Deno.Kv,
  op: Deno.AtomicOperation,
  keys: readonly Deno.KvKey[],
): () => Promise<void> {
  if (keys.length <= INLINE_DELETES) {
    for (const key of keys) op.delete(key);
    return () => Promise.resolve();
  }
  const ids: string[] = [];
  for (let i = 0; i < keys.length; i += PENDING_KEYS_MAX) {
    const id = ulid();
    const record: PendingDelete = {
      groups: groupKeys(keys.slice(i, i + PENDING_KEYS_MAX)),
      after: 0,
      kind: "garbage",
    };
    op.set(pendingDeleteKey(id), record);
    ids.push(id);
  }
  return async () => {
    for (const id of ids) await collectGarbage(kv, id);
  };
}

/**
 * Collects pending-delete records whose time has come: staged writes older than
 * `STAGE_TTL_MS` (their writer died) and leftover garbage. Returns how many it collected.
 */
export async function sweepPendingDeletes(
  kv: Deno.Kv,
  now: number = Date.now(),
  limit = 20,
): Promise<number> {
  let collected = 0;
  const entries = await listAll<PendingDelete>(kv, { prefix: pendingDeletePrefix() }, { limit });
  for (const entry of entries) {
    if (entry.value.after > now) continue;
    const id = String(entry.key[1]);
    if (entry.value.kind === "staged") await convertToGarbage(kv, id);
    else await collectGarbage(kv, id);
    collected++;
  }
  return collected;
}

/** How many pending-delete records exist (for stats and tests). */
export async function countPendingDeletes(kv: Deno.Kv): Promise<number> {
  let n = 0;
  for await (const _ of listEntries(kv, { prefix: pendingDeletePrefix() })) n++;
  return n;
}

/** Reads chunks in order; `null` when any is missing (the record changed while reading). */
export async function readChunks(
  kv: Deno.Kv,
  keys: readonly Deno.KvKey[],
): Promise<Uint8Array | null> {
  const entries = await getAll<Uint8Array>(kv, [...keys]);
  const parts: Uint8Array[] = [];
  for (const entry of entries) {
    if (!(entry.value instanceof Uint8Array)) return null;
    parts.push(entry.value);
  }
  return concatBytes(parts);
}

function batchEntries(
  entries: readonly (readonly [Deno.KvKey, unknown])[],
): (readonly [Deno.KvKey, unknown])[][] {
  const batches: (readonly [Deno.KvKey, unknown])[][] = [[]];
  let bytes = 0;
  for (const entry of entries) {
    const size = approxValueBytes(entry[1]);
    const current = batches[batches.length - 1];
    if (current.length > 0 && (bytes + size > STAGE_BATCH_BYTES || current.length >= BATCH_KEYS)) {
      batches.push([entry]);
      bytes = size;
    } else {
      current.push(entry);
      bytes += size;
    }
  }
  return batches;
}

/** Groups keys by everything but their last part. */
export function groupKeys(keys: readonly Deno.KvKey[]): KeyGroup[] {
  const groups = new Map<string, KeyGroup>();
  for (const key of keys) {
    const prefix = key.slice(0, -1);
    const id = JSON.stringify(prefix, (_k, v) => typeof v === "bigint" ? `${v}n` : v);
    const group = groups.get(id) ?? { prefix, last: [] };
    group.last.push(key[key.length - 1]);
    groups.set(id, group);
  }
  return [...groups.values()];
}

/** The keys a pending-delete record names. */
export function pendingKeys(record: PendingDelete): Deno.KvKey[] {
  return record.groups.flatMap((g) => g.last.map((part) => [...g.prefix, part]));
}

/**
 * Turns the staged record `id` into garbage, unless an atomic adopted it first (then the check
 * fails and nothing is deleted), and collects it.
 */
async function convertToGarbage(kv: Deno.Kv, id: string): Promise<void> {
  const entry = await readKey<PendingDelete>(kv, pendingDeleteKey(id));
  if (entry.value === null) return;
  const op = atomic(kv).check(entry).delete(entry.key)
    .set(pendingDeleteKey(`${id}.g`), { ...entry.value, after: 0, kind: "garbage" });
  const res = await commitOnce(op);
  if (res.ok) await collectGarbage(kv, `${id}.g`);
}

/** Deletes the keys of a garbage record in batches, then the record. Idempotent. */
async function collectGarbage(kv: Deno.Kv, id: string): Promise<void> {
  const entry = await readKey<PendingDelete>(kv, pendingDeleteKey(id));
  if (entry.value === null) return;
  const keys = pendingKeys(entry.value);
  for (let i = 0; i < keys.length; i += BATCH_KEYS) {
    const op = atomic(kv);
    for (const key of keys.slice(i, i + BATCH_KEYS)) op.delete(key);
    const res = await commitOnce(op);
    if (!res.ok) throw new Error("deleting garbage keys failed");
  }
  await retryLocked(() => kv.delete(entry.key));
}
