/**
 * Reading handoffs: a record and its whole conversation read consistently, its comments, one
 * handoff in full, and pages of the list.
 */

import type { HandoffLimits } from "./settings.ts";
import { readChunks } from "../kit/chunks.ts";
import { AppError } from "../kit/errors.ts";
import { getAll, listPage, type Page, readKey } from "../kit/reads.ts";
import {
  type Handoff,
  handoffChunkKey,
  type HandoffComment,
  handoffCommentKey,
  handoffKey,
  handoffTimePrefix,
} from "./store_schema.ts";
import { validateKey } from "./store_validate.ts";

/** Strict UTF-8 that keeps a leading byte order mark: conversations load back byte for byte. */
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** A handoff's record and its conversation, read consistently. */
export async function readWhole(
  kv: Deno.Kv,
  key: string,
): Promise<{ entry: Deno.KvEntry<Handoff>; bytes: Uint8Array } | null> {
  for (let round = 0; round < 20; round++) {
    const entry = await readKey<Handoff>(kv, handoffKey(key));
    if (entry.value === null) return null;
    const h = entry.value;
    const bytes = await readChunks(kv, h.chunks.map((c) => handoffChunkKey(key, c.id)));
    if (bytes !== null && bytes.byteLength === h.bytes) {
      return { entry: entry as Deno.KvEntry<Handoff>, bytes };
    }
    // The record was replaced between the two reads; its old chunks are gone. Read again.
  }
  throw new AppError(
    "busy",
    `Cannot read handoff "${key}": it kept changing while being read; try again`,
  );
}

/** The error for a key that no handoff has. */
export function notFound(what: string, key: string): AppError {
  return new AppError(
    "not_found",
    `${what}: no handoff has key "${key}" (handoff_list or handoff_search show the keys)`,
  );
}

/** A whole handoff as `handoff_load` returns it. */
export interface LoadedHandoff {
  handoff: Handoff;
  conversation: string;
  comments: HandoffComment[];
}

/** Reads a handoff, its whole conversation (byte for byte as saved) and its comments. */
export async function loadHandoff(
  kv: Deno.Kv,
  limits: HandoffLimits,
  key: string,
): Promise<LoadedHandoff> {
  const what = "Cannot load handoff";
  validateKey(key, limits, what);
  const whole = await readWhole(kv, key);
  if (whole === null) throw notFound(what, key);
  const handoff = whole.entry.value;
  const comments = await readComments(kv, handoff);
  return { handoff, conversation: decoder.decode(whole.bytes), comments };
}

/** A handoff's comments, in the order its record lists them. */
export async function readComments(kv: Deno.Kv, h: Handoff): Promise<HandoffComment[]> {
  const entries = await getAll<HandoffComment>(
    kv,
    h.commentIds.map((id) => handoffCommentKey(h.key, id)),
  );
  return entries.flatMap((e) => e.value ? [e.value] : []);
}

/** One page of handoffs, most recently saved first. */
export async function listHandoffs(
  kv: Deno.Kv,
  options: { limit: number; cursor?: string },
): Promise<Page<Handoff>> {
  const page = await listPage<string>(kv, handoffTimePrefix(), { ...options, reverse: true });
  const records = await getAll<Handoff>(kv, page.items.map((e) => handoffKey(e.value)));
  const kept = records.flatMap((r, i) =>
    r.value && r.value.order === page.items[i].key[1] ? [{ item: r.value, i }] : []
  );
  return {
    ...page,
    items: kept.map((k) => k.item),
    cursors: kept.map((k) => page.cursors[k.i]),
  };
}
