/**
 * Sliding expiry of sequences (`THOUGHT_RETENTION_DAYS`): when a sequence counts as expired, the
 * `expireIn` its keys are written with, and renewing that expiry as writes go on. Reads filter on
 * the logical expiry, since KV removes expired keys late.
 */

import type { ThinkingLimits } from "./settings.ts";
import { resetExpiry } from "../kit/bulk_writes.ts";
import { childPrefixes, type SequenceRecord } from "./store_keys.ts";

/** Where a sequence's clock comes from; tests pass a fake one. */
export type Clock = () => number;

/**
 * How long a sequence lives after its last write, in ms (0: until deleted): the configured
 * retention, or the one its keys were last written under when that is shorter, since KV drops
 * those keys on that schedule whatever the configuration says now.
 */
export function retentionOf(seq: SequenceRecord, limits: ThinkingLimits): number {
  const written = seq.expiryMs / 2;
  if (written <= 0) return limits.retentionMs;
  if (limits.retentionMs <= 0) return written;
  return Math.min(written, limits.retentionMs);
}

/** True once a sequence has outlived its retention without a write (KV's own expiry runs late). */
export function isExpired(seq: SequenceRecord, limits: ThinkingLimits, now: number): boolean {
  const retention = retentionOf(seq, limits);
  return retention > 0 && now - Date.parse(seq.updatedAt) > retention;
}

/** The live sequence record, or `null` when unknown, being deleted or expired. */
export function live(
  seq: SequenceRecord | null,
  limits: ThinkingLimits,
  now: number,
): SequenceRecord | null {
  if (seq === null || seq.deleting || isExpired(seq, limits, now)) return null;
  return seq;
}

/**
 * The `expireIn` keys are written with: twice the retention, so a key outlives its sequence's
 * logical expiry (`retentionOf` relies on this factor).
 */
export function physicalExpiry(limits: ThinkingLimits): number {
  return limits.retentionMs > 0 ? 2 * limits.retentionMs : 0;
}

/** The options of a `set` with `expiryMs` (0: no expiry). */
export function setOptions(expiryMs: number): { expireIn: number } | undefined {
  return expiryMs > 0 ? { expireIn: expiryMs } : undefined;
}

/** The last expiry reset one write made, so a retried attempt of it does not repeat the reset. */
export interface ExpiryRefresh {
  at: number;
  expiryMs: number;
}

/** No reset made yet. */
export function noRefresh(): ExpiryRefresh {
  return { at: 0, expiryMs: -1 };
}

/**
 * Before a write to an existing sequence: when the retention changed, or the margin since the
 * last reset is used up, gives every key of the sequence a fresh expiry. Records on `seq` (the
 * record about to be written) when that reset happened and with which expiry.
 */
export async function refreshExpiry(
  kv: Deno.Kv,
  limits: ThinkingLimits,
  seq: SequenceRecord,
  expiryMs: number,
  now: number,
  refreshed: ExpiryRefresh,
): Promise<void> {
  let base = refreshed.expiryMs === expiryMs ? refreshed.at : -1;
  if (seq.expiryMs === expiryMs) base = Math.max(base, seq.refreshedAt);
  if (base < 0 || (expiryMs > 0 && now - base > limits.retentionMs)) {
    await resetExpiry(kv, childPrefixes(seq.id), expiryMs > 0 ? expiryMs : undefined);
    refreshed.at = base = now;
    refreshed.expiryMs = expiryMs;
  }
  seq.refreshedAt = base;
  seq.expiryMs = expiryMs;
}
