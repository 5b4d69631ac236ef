/** `handoff_stats`: how full the store is, its sizes and statuses, and every limit. */

import { listEntries, readKey } from "../kit/reads.ts";
import type { HandoffLimits } from "./settings.ts";
import {
  type Handoff,
  handoffCountKey,
  handoffImportCountKey,
  handoffLeasePrefix,
  handoffPrefix,
  type HandoffStatus,
  type Lease,
} from "./store_schema.ts";

/** Counts, sizes and limits of the store. */
export interface HandoffStats {
  count: number;
  maxHandoffs: number;
  /** `count / maxHandoffs`, 0–1. */
  fullness: number;
  evictWhenFull: boolean;
  /** Imported chats, counted apart and never evicted (`HANDOFF_IMPORTED_MAX_COUNT`). */
  imported: number;
  totalBytes: number;
  totalMessages: number;
  totalComments: number;
  byStatus: Record<HandoffStatus, number>;
  largest: { key: string; bytes: number } | null;
  oldest: { key: string; updatedAt: string } | null;
  newest: { key: string; updatedAt: string } | null;
  /** Handoffs being merged right now. */
  merging: number;
  limits: HandoffLimits;
}

/** Reads the count and scans every record (one range scan) for sizes and statuses. */
export async function handoffStats(kv: Deno.Kv, limits: HandoffLimits): Promise<HandoffStats> {
  const count = (await readKey<number>(kv, handoffCountKey())).value ?? 0;
  const imported = (await readKey<number>(kv, handoffImportCountKey())).value ?? 0;
  const byStatus: Record<HandoffStatus, number> = { active: 0, completed: 0, pending: 0 };
  let totalBytes = 0;
  let totalMessages = 0;
  let totalComments = 0;
  let largest: HandoffStats["largest"] = null;
  let first: Handoff | null = null;
  let last: Handoff | null = null;
  for await (
    const { value: h } of listEntries<Handoff>(kv, { prefix: handoffPrefix() }, { batchSize: 500 })
  ) {
    byStatus[h.status]++;
    totalBytes += h.bytes;
    totalMessages += h.messageCount;
    totalComments += h.commentIds.length;
    if (largest === null || h.bytes > largest.bytes) largest = { key: h.key, bytes: h.bytes };
    if (first === null || h.order < first.order) first = h;
    if (last === null || h.order > last.order) last = h;
  }
  const oldest = first && { key: first.key, updatedAt: first.updatedAt };
  const newest = last && { key: last.key, updatedAt: last.updatedAt };
  const now = Date.now();
  let merging = 0;
  for await (const lease of listEntries<Lease>(kv, { prefix: handoffLeasePrefix() })) {
    if (lease.value.until > now) merging++;
  }
  return {
    count,
    maxHandoffs: limits.maxHandoffs,
    fullness: Math.round((count / limits.maxHandoffs) * 1000) / 1000,
    evictWhenFull: limits.evictWhenFull,
    imported,
    totalBytes,
    totalMessages,
    totalComments,
    byStatus,
    largest,
    oldest,
    newest,
    merging,
    limits,
  };
}
