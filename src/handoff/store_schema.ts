/**
 * The handoff toolset's records and their KV keys: what a handoff, a comment and a merge lease
 * hold, and one builder per key shape.
 */

import type { ChunkRef } from "../kit/chunks.ts";
import {
  bytes,
  count,
  defineRecords,
  list,
  nullable,
  num,
  obj,
  oneOf,
  opt,
  type RecordFamily,
  str,
} from "../kit/record_shapes.ts";

/** The statuses a handoff can have. */
export const HANDOFF_STATUSES = ["active", "completed", "pending"] as const;

/** One status. */
export type HandoffStatus = typeof HANDOFF_STATUSES[number];

/** Keys refused because they are words of the HTTP API's routes or of the tools. */
export const RESERVED_KEYS = [
  "all",
  "api",
  "append",
  "clear",
  "comments",
  "delete",
  "handoffs",
  "list",
  "load",
  "merge",
  "new",
  "save",
  "search",
  "stats",
] as const;

/** One handoff's record: metadata plus pointers to its conversation chunks and comments. */
export interface Handoff {
  key: string;
  title: string;
  summary: string;
  fromAi: string | null;
  fromProject: string | null;
  status: HandoffStatus;
  nextAction: string | null;
  tags: string[];
  createdAt: string;
  updatedAt: string;
  /** ULID of the last save, append or merge: the key of its entry in the time index. */
  order: string;
  /** UTF-8 bytes of the conversation. */
  bytes: number;
  messageCount: number;
  chunks: ChunkRef[];
  commentIds: string[];
  /** Source keys, when this handoff was made by a merge. */
  mergedFrom: string[] | null;
  /**
   * Set on a conversation imported from a chat export (`src/backup/chats/`): where it came from
   * and the digest of what was written, so a re-import of the same text writes nothing. Imported
   * handoffs are counted under `handoffImportCountKey` and never evicted.
   */
  imported?: ImportedFrom;
}

/** Where an imported handoff came from. */
export interface ImportedFrom {
  /** `chatgpt`, `claude` or `gemini`. */
  source: string;
  /** Digest of the handoff as the importer built it (title, summary, conversation, tags…). */
  digest: string;
}

/** A note added to a handoff between sessions. */
export interface HandoffComment {
  id: string;
  author: string | null;
  content: string;
  createdAt: string;
}

/** A merge's hold on one source (see `handoff_merge.ts`): eviction and other merges skip it. */
export interface Lease {
  id: string;
  until: number;
}

/** Which handoff was evicted to make room, so a save result can name it. */
export interface Evicted {
  key: string;
  title: string;
  updatedAt: string;
}

/**
 * Reports progress of a long write: `done` of `total` steps. `done` grows with every call;
 * `total` may grow once the number of staging batches is known.
 */
export type Progress = (done: number, total: number, message: string) => Promise<void> | void;

/** Key of a handoff's record. */
export function handoffKey(key: string): Deno.KvKey {
  return ["handoff", key];
}

/** Prefix of all handoff records, in key order. */
export function handoffPrefix(): Deno.KvKey {
  return ["handoff"];
}

/** Time index entry (value: the key) of a record whose `order` is `order`. */
export function handoffTimeKey(order: string): Deno.KvKey {
  return ["handoff_time", order];
}

/** Prefix of the time index: oldest first, newest last. */
export function handoffTimePrefix(): Deno.KvKey {
  return ["handoff_time"];
}

/** Key of one chunk of a handoff's conversation. */
export function handoffChunkKey(key: string, chunkId: string): Deno.KvKey {
  return ["handoff_chunk", key, chunkId];
}

/** Key of one comment of a handoff. */
export function handoffCommentKey(key: string, commentId: string): Deno.KvKey {
  return ["handoff_comment", key, commentId];
}

/** Key of the number of handoffs, checked in every atomic that adds or removes one. */
export function handoffCountKey(): Deno.KvKey {
  return ["handoff_count"];
}

/** Key of the number of imported handoffs (`HANDOFF_IMPORTED_MAX_COUNT` bounds it). */
export function handoffImportCountKey(): Deno.KvKey {
  return ["handoff_import_count"];
}

/** The count key a handoff is counted under: imported ones apart from the evictable ones. */
export function countKeyOf(h: Pick<Handoff, "imported">): Deno.KvKey {
  return h.imported ? handoffImportCountKey() : handoffCountKey();
}

/**
 * Eviction index entry (value: the key) of a handoff that may be evicted (not imported), by its
 * `order`: eviction lists it oldest first and never walks past imported history.
 */
export function handoffEvictKey(order: string): Deno.KvKey {
  return ["handoff_evict", order];
}

/** Prefix of the eviction index: oldest first. */
export function handoffEvictPrefix(): Deno.KvKey {
  return ["handoff_evict"];
}

/** Set once the eviction index holds every evictable handoff written before it existed. */
export function handoffEvictBuiltKey(): Deno.KvKey {
  return ["handoff_evict_built"];
}

/** Key of a merge's lease on a source handoff. */
export function handoffLeaseKey(key: string): Deno.KvKey {
  return ["handoff_lease", key];
}
/** Prefix of every merge lease. */
export function handoffLeasePrefix(): Deno.KvKey {
  return ["handoff_lease"];
}
/** Prefix of the chunks of every handoff, grouped by handoff key. */
export function handoffChunkPrefix(): Deno.KvKey {
  return ["handoff_chunk"];
}

/**
 * The shape of each handoff record family, declared to the kit (kit/record_shapes.ts): its read
 * helpers refuse a stored entry of the wrong shape naming its key, and import refuses such a line.
 */
export const HANDOFF_RECORDS: Record<string, RecordFamily> = {
  handoff: {
    key: ["string"],
    value: obj({
      key: str,
      title: str,
      summary: str,
      fromAi: opt(nullable(str)),
      fromProject: opt(nullable(str)),
      status: oneOf(HANDOFF_STATUSES),
      nextAction: opt(nullable(str)),
      tags: list(str),
      createdAt: str,
      updatedAt: str,
      order: str,
      bytes: count,
      messageCount: opt(count),
      chunks: list(obj({ id: str, bytes: count })),
      commentIds: list(str),
      mergedFrom: opt(nullable(list(str))),
    }),
  },
  handoff_chunk: { key: ["string", "string"], value: bytes },
  handoff_time: { key: ["string"], value: str },
  handoff_comment: {
    key: ["string", "string"],
    value: obj({ id: str, author: nullable(str), content: str, createdAt: str }),
  },
  handoff_count: { key: [], value: count },
  handoff_lease: { key: ["string"], value: obj({ id: str, until: num }) },
};

defineRecords(HANDOFF_RECORDS);
