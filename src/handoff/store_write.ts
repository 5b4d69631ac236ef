/**
 * What every handoff write shares: chunk entries under fresh ids, a record written with its time
 * entry, collecting what a commit left behind, and the last progress report of a write that has
 * landed.
 */

import { indexLater, indexRecord } from "../kit/search_source.ts";
import { handoffDoc } from "./search.ts";
import { type ChunkRef, splitBytes } from "../kit/chunks.ts";
import { ulid } from "../kit/ids.ts";
import {
  type Handoff,
  handoffChunkKey,
  handoffEvictKey,
  handoffKey,
  handoffTimeKey,
  type Progress,
} from "./store_schema.ts";

/** Chunk entries for `bytes` under `key`, with fresh ids. */
export function chunkEntries(
  key: string,
  bytes: Uint8Array,
): { refs: ChunkRef[]; entries: [Deno.KvKey, Uint8Array][] } {
  const refs: ChunkRef[] = [];
  const entries: [Deno.KvKey, Uint8Array][] = [];
  for (const part of splitBytes(bytes)) {
    const id = ulid();
    refs.push({ id, bytes: part.byteLength });
    entries.push([handoffChunkKey(key, id), part.slice()]);
  }
  return { refs, entries };
}

/** Longest conversation (UTF-16 units) copied into the save's own pending entry. */
const INLINE_CONVERSATION_MAX = 20_000;

/**
 * Adds `handoff` and its time entry to `op`: the list order reads one, the other is the record;
 * unless it is imported history, its eviction index entry; and its one search entry: with its
 * `conversation` at hand, a small handoff is searchable as soon as the write lands; otherwise
 * (or when it is large) the search folder reads it back.
 */
export function putRecord(op: Deno.AtomicOperation, handoff: Handoff, conversation?: string): void {
  op.set(handoffKey(handoff.key), handoff).set(handoffTimeKey(handoff.order), handoff.key);
  if (!handoff.imported) op.set(handoffEvictKey(handoff.order), handoff.key);
  if (conversation !== undefined && conversation.length <= INLINE_CONVERSATION_MAX) {
    indexRecord(op, handoffDoc(handoff, conversation), true);
  } else {
    indexLater(op, "handoff", [handoff.key], true);
  }
}

/** Adds to `op` the removal of the index entries (time, eviction) of a record's `order`. */
export function dropOrder(op: Deno.AtomicOperation, order: string): void {
  op.delete(handoffTimeKey(order)).delete(handoffEvictKey(order));
}

/**
 * Adds to `op` and `garbage` what a record rewritten whole under its own key leaves behind: its
 * time entry and its chunks. Its comments stay with the key.
 */
export function replaceInto(op: Deno.AtomicOperation, garbage: Deno.KvKey[], old: Handoff): void {
  dropOrder(op, old.order);
  garbage.push(...old.chunks.map((c) => handoffChunkKey(old.key, c.id)));
}

/** Reports the last step of a write that has landed: a report that fails cannot undo it. */
export async function reportLanded(
  progress: Progress | undefined,
  steps: number,
  message: string,
): Promise<void> {
  try {
    await progress?.(steps, steps, message);
  } catch {
    // Best effort: the client may be gone; the write's result still stands.
  }
}

/** Runs a commit's garbage collector; old chunks left behind are swept later if it fails. */
export async function collectAfter(collect: () => Promise<void>): Promise<void> {
  try {
    await collect();
  } catch {
    // The pending-delete record stays and sweepPendingDeletes() collects it later.
  }
}
