/**
 * The handoff toolset's records in KV: whole conversations carried from one AI client to
 * another, stored in chunks under a record that is swapped in last.
 */

import type { HandoffLimits } from "../config.ts";
import {
  CHUNK_BYTES,
  type ChunkRef,
  concatBytes,
  deleteWith,
  INLINE_BYTES,
  readChunks,
  splitBytes,
  type Staged,
  stageWrites,
  sweepPendingDeletes,
} from "./chunks.ts";
import { countMessages } from "./handoff_messages.ts";
import {
  commitWithRetry,
  getAll,
  invalid,
  listPage,
  nowIso,
  type Page,
  retryLocked,
  StaleRead,
  StoreError,
  ulid,
} from "./kv.ts";

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

/** Appends larger than this are staged before their atomic; smaller ones are written inline. */
export const INLINE_APPEND_BYTES = INLINE_BYTES - CHUNK_BYTES;

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
/** Key of a merge's lease on a source handoff. */
export function handoffLeaseKey(key: string): Deno.KvKey {
  return ["handoff_lease", key];
}

const encoder = new TextEncoder();
/** Strict UTF-8 that keeps a leading byte order mark: conversations load back byte for byte. */
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** UTF-8 bytes of `text`. */
export function utf8Bytes(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

const KEY_PATTERN = /^[A-Za-z0-9_-]+$/;
const TAG_PATTERN = /^[a-z0-9_:-]+$/;

/** Checks a handoff key: 1–max characters of `[A-Za-z0-9_-]`, not a reserved word. */
export function validateKey(key: unknown, limits: HandoffLimits, what: string): string {
  const allowed = `1–${limits.keyMaxChars} characters of A-Z a-z 0-9 _ -`;
  if (typeof key !== "string") invalid(`${what}: key must be a string of ${allowed}`);
  if (key.length === 0 || key.length > limits.keyMaxChars) {
    invalid(`${what}: key must be ${allowed}, got ${key.length} characters`);
  }
  if (!KEY_PATTERN.test(key)) {
    invalid(`${what}: key "${clip(key)}" has characters outside A-Z a-z 0-9 _ - (${allowed})`);
  }
  if ((RESERVED_KEYS as readonly string[]).includes(key.toLowerCase())) {
    invalid(
      `${what}: key "${key}" is reserved (reserved: ${RESERVED_KEYS.join(", ")}); choose another`,
    );
  }
  return key;
}

/** Lowercases, checks and de-duplicates tags. */
export function normalizeTags(tags: unknown, limits: HandoffLimits, what: string): string[] {
  if (tags === undefined || tags === null) return [];
  if (!Array.isArray(tags)) invalid(`${what}: tags must be a list of strings`);
  const out: string[] = [];
  for (const raw of tags) {
    if (typeof raw !== "string") invalid(`${what}: every tag must be a string`);
    const tag = raw.trim().toLowerCase();
    if (tag.length === 0 || tag.length > limits.tagMaxChars || !TAG_PATTERN.test(tag)) {
      invalid(
        `${what}: tag "${
          clip(raw)
        }" is not allowed: tags are 1–${limits.tagMaxChars} characters of a-z 0-9 _ : - (uppercase is lowercased)`,
      );
    }
    if (!out.includes(tag)) out.push(tag);
  }
  if (out.length > limits.tagsMax) {
    invalid(`${what}: ${out.length} tags given; at most ${limits.tagsMax} are allowed`);
  }
  return out;
}

/** A trimmed single line of at most `max` characters, or `null` when absent or blank. */
export function optionalLine(
  value: unknown,
  field: string,
  max: number,
  what: string,
): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "string") invalid(`${what}: ${field} must be a string`);
  const text = value.trim();
  if (text === "") return null;
  if (/[\r\n\u2028\u2029]/.test(text)) {
    invalid(`${what}: ${field} must be a single line (no line breaks), at most ${max} characters`);
  }
  if (/\p{Cc}/u.test(text.replaceAll("\t", " "))) {
    invalid(`${what}: ${field} must not contain control characters`);
  }
  const length = [...text].length;
  if (length > max) {
    throw new StoreError(
      "too_large",
      `${what}: ${field} is ${length} characters; at most ${max} are allowed`,
    );
  }
  return text;
}

/** Checks a block of text (summary, comment, chunk): a string, well-formed, under a byte cap. */
export function checkText(
  value: unknown,
  field: string,
  maxBytes: number,
  setting: string,
  what: string,
): string {
  if (typeof value !== "string") invalid(`${what}: ${field} must be a string`);
  if (!value.isWellFormed()) {
    invalid(`${what}: ${field} contains a lone UTF-16 surrogate; send valid Unicode text`);
  }
  const bytes = utf8Bytes(value);
  if (bytes > maxBytes) {
    throw new StoreError(
      "too_large",
      `${what}: ${field} is ${bytes} bytes (UTF-8); at most ${maxBytes} bytes (${setting}) are allowed`,
    );
  }
  return value;
}

/** Checks a status, `active` when absent. */
export function checkStatus(value: unknown, what: string): HandoffStatus {
  if (value === undefined || value === null) return "active";
  if (!(HANDOFF_STATUSES as readonly unknown[]).includes(value)) {
    invalid(`${what}: status must be one of ${HANDOFF_STATUSES.join(", ")}, got "${value}"`);
  }
  return value as HandoffStatus;
}

/** `text` cut to `max` UTF-16 units with "…" (never inside a surrogate pair), for messages. */
export function clip(text: string, max = 40): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  return `${/[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut}…`;
}

/** Cuts `text` to at most `max` characters, at a word break when one is near, with "…". */
export function truncateChars(text: string, max: number): string {
  const chars = [...text];
  if (chars.length <= max) return text;
  let cut = chars.slice(0, max - 1).join("");
  const space = cut.lastIndexOf(" ");
  if (space > cut.length - 20 && space > 0) cut = cut.slice(0, space);
  return `${cut.trimEnd()}…`;
}

/** Cuts `text` to at most `maxBytes` UTF-8 bytes at a character boundary, with "…". */
export function truncateBytes(text: string, maxBytes: number): string {
  if (utf8Bytes(text) <= maxBytes) return text;
  let bytes = 3; // the ellipsis
  let out = "";
  for (const char of text) {
    const size = utf8Bytes(char);
    if (bytes + size > maxBytes) break;
    out += char;
    bytes += size;
  }
  return `${out}…`;
}

/** A title made from the first line of the summary. */
export function titleFromSummary(summary: string, limits: HandoffLimits): string {
  const line = summary.split(/\r?\n/)
    .map((l) => l.replace(/^[\s#>*_-]+/, "").replace(/\s+/g, " ").trim())
    .find((l) => l !== "") ?? "Untitled handoff";
  return truncateChars(line, Math.min(80, limits.titleMaxChars));
}

/** A fresh key: `handoff-YYYYMMDD-HHMMSS-xxxxxx` (UTC, six random characters). */
export function generateKey(now: Date = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
  const random = crypto.getRandomValues(new Uint8Array(6));
  return `handoff-${stamp}-${[...random].map((b) => alphabet[b % 36]).join("")}`;
}

/** What `saveHandoff` takes; optional fields may be omitted. */
export interface SaveInput {
  key?: string;
  title?: string;
  summary: string;
  conversation: string;
  fromAi?: string;
  fromProject?: string;
  status?: string;
  nextAction?: string;
  tags?: string[];
}

/** What a save did. */
export interface SaveResult {
  handoff: Handoff;
  overwritten: boolean;
  generatedKey: boolean;
  evicted: Evicted | null;
}

interface Checked {
  key: string | null;
  title: string | null;
  summary: string;
  conversation: string;
  fromAi: string | null;
  fromProject: string | null;
  status: HandoffStatus;
  nextAction: string | null;
  tags: string[];
}

/** Validates a whole save before anything is written. */
function checkSave(input: SaveInput, limits: HandoffLimits, what: string): Checked {
  if (typeof input !== "object" || input === null) invalid(`${what}: expected an object`);
  const key = input.key === undefined || input.key === null || input.key === ""
    ? null
    : validateKey(input.key, limits, what);
  const summary = checkText(
    input.summary,
    "summary",
    limits.summaryMaxBytes,
    "HANDOFF_SUMMARY_MAX_BYTES",
    what,
  ).trim();
  if (summary === "") invalid(`${what}: summary must not be empty: say what the conversation is`);
  const conversation = checkText(
    input.conversation,
    "conversation",
    limits.conversationMaxBytes,
    "HANDOFF_CONVERSATION_MAX_BYTES",
    what,
  );
  if (conversation.trim() === "") {
    invalid(
      `${what}: conversation must not be empty: send the whole conversation verbatim as ## User / ## Assistant sections`,
    );
  }
  return {
    key,
    title: optionalLine(input.title, "title", limits.titleMaxChars, what),
    summary,
    conversation,
    fromAi: optionalLine(input.fromAi, "from_ai", limits.nameMaxChars, what),
    fromProject: optionalLine(input.fromProject, "from_project", limits.projectMaxChars, what),
    status: checkStatus(input.status, what),
    nextAction: optionalLine(input.nextAction, "next_action", limits.nextActionMaxChars, what),
    tags: normalizeTags(input.tags, limits, what),
  };
}

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

/** Every key a handoff owns besides its record and time index entry. */
function ownedKeys(h: Handoff): Deno.KvKey[] {
  return [
    ...h.chunks.map((c) => handoffChunkKey(h.key, c.id)),
    ...h.commentIds.map((id) => handoffCommentKey(h.key, id)),
  ];
}

/** Adds the removal of `h` (record, time entry, lease) to `op`; its chunks and comments to `garbage`. */
export function removeInto(op: Deno.AtomicOperation, garbage: Deno.KvKey[], h: Handoff): void {
  op.delete(handoffKey(h.key)).delete(handoffTimeKey(h.order)).delete(handoffLeaseKey(h.key));
  garbage.push(...ownedKeys(h));
}

function evictedOf(h: Handoff): Evicted {
  return { key: h.key, title: h.title, updatedAt: h.updatedAt };
}

/**
 * The oldest handoff that may be evicted: not in `exclude` and not held by a live merge lease.
 * Its record and lease entries are returned so the caller's atomic can check them.
 */
async function pickVictim(
  kv: Deno.Kv,
  exclude: ReadonlySet<string>,
): Promise<{ record: Deno.KvEntry<Handoff>; lease: Deno.KvEntryMaybe<Lease> } | null> {
  const now = Date.now();
  for await (const entry of kv.list<string>({ prefix: handoffTimePrefix() }, { batchSize: 20 })) {
    const key = entry.value;
    if (exclude.has(key)) continue;
    const [record, lease] = await kv.getMany<[Handoff, Lease]>([
      handoffKey(key),
      handoffLeaseKey(key),
    ]);
    if (record.value === null || record.value.order !== entry.key[1]) continue;
    if (lease.value !== null && lease.value.until > now) continue;
    return { record: record as Deno.KvEntry<Handoff>, lease };
  }
  return null;
}

function fullError(what: string, limits: HandoffLimits, count: number, reason: string): StoreError {
  return new StoreError(
    "full",
    `${what}: the store holds ${count} handoffs, the maximum (HANDOFF_MAX_COUNT=${limits.maxHandoffs}); ${reason}`,
  );
}

/**
 * Makes room for one more handoff inside `op`: checks the count, and when it is at the maximum
 * evicts the oldest evictable handoff (or throws when eviction is off). Returns the evicted one.
 */
export async function makeRoom(
  kv: Deno.Kv,
  limits: HandoffLimits,
  op: Deno.AtomicOperation,
  garbage: Deno.KvKey[],
  count: Deno.KvEntryMaybe<number>,
  delta: number,
  exclude: ReadonlySet<string>,
  what: string,
): Promise<Evicted | null> {
  const current = count.value ?? 0;
  let next = current + delta;
  let evicted: Evicted | null = null;
  if (delta > 0 && next > limits.maxHandoffs) {
    if (!limits.evictWhenFull) {
      throw fullError(
        what,
        limits,
        current,
        "eviction is off (HANDOFF_EVICT=false): delete a handoff with handoff_clear first",
      );
    }
    const victim = await pickVictim(kv, exclude);
    if (victim === null) {
      // Concurrent evictions can empty the index under a stale count: only an unchanged count
      // means every handoff really is held by a merge.
      const recount = await kv.get<number>(handoffCountKey());
      if (recount.versionstamp !== count.versionstamp) throw new StaleRead("handoff count moved");
      throw fullError(what, limits, current, "every handoff is being merged; try again shortly");
    }
    op.check(victim.record, victim.lease);
    removeInto(op, garbage, victim.record.value);
    evicted = evictedOf(victim.record.value);
    next--;
  }
  op.check(count).set(handoffCountKey(), next);
  return evicted;
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

/**
 * Saves a handoff, overwriting one with the same key. Everything is validated before anything is
 * written; a full store evicts its oldest handoff (named in the result) or refuses the save.
 */
export async function saveHandoff(
  kv: Deno.Kv,
  limits: HandoffLimits,
  input: SaveInput,
  progress?: Progress,
): Promise<SaveResult> {
  const what = "Cannot save handoff";
  const checked = checkSave(input, limits, what);
  const bytes = encoder.encode(checked.conversation);
  const messageCount = countMessages(checked.conversation);
  const title = checked.title ?? titleFromSummary(checked.summary, limits);
  if (!limits.evictWhenFull) await refuseEarlyWhenFull(kv, limits, checked.key, what);

  // A generated key that collides with an existing handoff is replaced, never overwritten.
  const target = {
    key: checked.key ?? generateKey(),
    refs: [] as ChunkRef[],
    staged: null as Staged | null,
    steps: 1,
  };
  const stage = async () => {
    const chunked = chunkEntries(target.key, bytes);
    target.refs = chunked.refs;
    target.staged = await stageWrites(kv, chunked.entries, {
      onBatch: (done, total) => {
        target.steps = total + 1;
        return progress?.(done, total + 1, `stored chunk batch ${done} of ${total}`);
      },
    });
  };
  await progress?.(0, 1, `saving ${bytes.byteLength} bytes`);
  await stage();
  if (target.staged!.inlineBytes === 0) await sweepPendingDeletes(kv);

  try {
    const { result, collect } = await commitWithRetry(async () => {
      let [current, count] = await kv.getMany<[Handoff, number]>([
        handoffKey(target.key),
        handoffCountKey(),
      ]);
      while (checked.key === null && current.value !== null) {
        await target.staged!.abandon();
        target.key = generateKey();
        await stage();
        [current, count] = await kv.getMany<[Handoff, number]>([
          handoffKey(target.key),
          handoffCountKey(),
        ]);
      }
      const key = target.key;
      const existing = current.value;
      const now = nowIso();
      const order = ulid();
      const op = kv.atomic().check(current);
      const garbage: Deno.KvKey[] = [];
      let evicted: Evicted | null = null;
      if (existing) {
        op.delete(handoffTimeKey(existing.order));
        garbage.push(...existing.chunks.map((c) => handoffChunkKey(key, c.id)));
      } else {
        evicted = await makeRoom(kv, limits, op, garbage, count, 1, new Set([key]), what);
      }
      const handoff: Handoff = {
        key,
        title,
        summary: checked.summary,
        fromAi: checked.fromAi,
        fromProject: checked.fromProject,
        status: checked.status,
        nextAction: checked.nextAction,
        tags: checked.tags,
        createdAt: existing?.createdAt ?? now,
        updatedAt: now,
        order,
        bytes: bytes.byteLength,
        messageCount,
        chunks: target.refs,
        commentIds: existing?.commentIds ?? [],
        mergedFrom: null,
      };
      op.set(handoffKey(key), handoff).set(handoffTimeKey(order), key);
      target.staged!.adopt(op);
      const result: SaveResult = {
        handoff,
        overwritten: existing !== null,
        generatedKey: checked.key === null,
        evicted,
      };
      return { op, value: { result, collect: deleteWith(kv, op, garbage) } };
    });
    await collectAfter(collect);
    await reportLanded(progress, target.steps, "saved");
    return result;
  } catch (error) {
    // Staged chunks a failed abandon leaves behind are swept after their TTL.
    await target.staged?.abandon().catch(() => {});
    throw error;
  }
}

/** With eviction off, refuses a new handoff in a full store before a large write is staged. */
async function refuseEarlyWhenFull(
  kv: Deno.Kv,
  limits: HandoffLimits,
  key: string | null,
  what: string,
): Promise<void> {
  const count = (await kv.get<number>(handoffCountKey())).value ?? 0;
  if (count < limits.maxHandoffs) return;
  if (key !== null && (await kv.get(handoffKey(key))).value !== null) return; // an overwrite
  throw fullError(
    what,
    limits,
    count,
    "eviction is off (HANDOFF_EVICT=false): delete a handoff with handoff_clear first",
  );
}

/** A handoff's record and its conversation, read consistently. */
export async function readWhole(
  kv: Deno.Kv,
  key: string,
): Promise<{ entry: Deno.KvEntry<Handoff>; bytes: Uint8Array } | null> {
  for (let round = 0; round < 20; round++) {
    const entry = await retryLocked(() => kv.get<Handoff>(handoffKey(key)));
    if (entry.value === null) return null;
    const h = entry.value;
    const bytes = await retryLocked(() =>
      readChunks(kv, h.chunks.map((c) => handoffChunkKey(key, c.id)))
    );
    if (bytes !== null && bytes.byteLength === h.bytes) {
      return { entry: entry as Deno.KvEntry<Handoff>, bytes };
    }
    // The record was replaced between the two reads; its old chunks are gone. Read again.
  }
  throw new StoreError(
    "busy",
    `Cannot read handoff "${key}": it kept changing while being read; try again`,
  );
}

export function notFound(what: string, key: string): StoreError {
  return new StoreError(
    "not_found",
    `${what}: no handoff has key "${key}" (handoff_list or handoff_search show the keys)`,
  );
}

/** What `appendHandoff` did. */
export interface AppendResult {
  handoff: Handoff;
  appendedBytes: number;
}

/**
 * Appends `chunk` to a saved conversation. An append that would pass the size limit changes
 * nothing. Concurrent appends all land, in the order their atomics commit.
 */
export async function appendHandoff(
  kv: Deno.Kv,
  limits: HandoffLimits,
  key: string,
  chunk: string,
  progress?: Progress,
): Promise<AppendResult> {
  const what = "Cannot append to handoff";
  validateKey(key, limits, what);
  checkText(chunk, "chunk", limits.conversationMaxBytes, "HANDOFF_CONVERSATION_MAX_BYTES", what);
  if (chunk.length === 0) invalid(`${what}: chunk must not be empty`);
  const add = encoder.encode(chunk);
  const big = add.byteLength > INLINE_APPEND_BYTES;
  let steps = 1;
  await progress?.(0, steps, `appending ${add.byteLength} bytes`);

  let staged: Staged | null = null;
  let stagedRefs: ChunkRef[] = [];
  if (big) {
    const first = await kv.get<Handoff>(handoffKey(key));
    if (first.value === null) throw notFound(what, key);
    if (first.value.bytes + add.byteLength > limits.conversationMaxBytes) {
      throw tooLargeAppend(what, key, first.value.bytes, add.byteLength, limits);
    }
    const chunked = chunkEntries(key, add);
    stagedRefs = chunked.refs;
    await sweepPendingDeletes(kv);
    staged = await stageWrites(kv, chunked.entries, {
      inlineBytes: 0,
      onBatch: (done, total) => {
        steps = total + 1;
        return progress?.(done, total + 1, `stored chunk batch ${done} of ${total}`);
      },
    });
  }
  try {
    const { result, collect } = await commitWithRetry(async () => {
      const whole = await readWhole(kv, key);
      if (whole === null) throw notFound(what, key);
      const existing = whole.entry.value;
      const total = existing.bytes + add.byteLength;
      if (total > limits.conversationMaxBytes) {
        throw tooLargeAppend(what, key, existing.bytes, add.byteLength, limits);
      }
      const text = decoder.decode(whole.bytes) + chunk;
      const op = kv.atomic().check(whole.entry).delete(handoffTimeKey(existing.order));
      const garbage: Deno.KvKey[] = [];
      let chunks: ChunkRef[];
      if (staged) {
        chunks = [...existing.chunks, ...stagedRefs];
        staged.adopt(op);
      } else {
        // Small append: rewrite a partly filled last chunk together with the new bytes, so
        // many small appends do not leave many small chunks.
        const last = existing.chunks.at(-1);
        let tail: Uint8Array = add;
        let kept = existing.chunks;
        if (last && last.bytes < CHUNK_BYTES) {
          tail = concatBytes([whole.bytes.subarray(whole.bytes.byteLength - last.bytes), add]);
          kept = existing.chunks.slice(0, -1);
          garbage.push(handoffChunkKey(key, last.id));
        }
        const fresh = chunkEntries(key, tail);
        for (const [k, v] of fresh.entries) op.set(k, v);
        chunks = [...kept, ...fresh.refs];
      }
      const order = ulid();
      const handoff: Handoff = {
        ...existing,
        updatedAt: nowIso(),
        order,
        bytes: total,
        messageCount: countMessages(text),
        chunks,
      };
      op.set(handoffKey(key), handoff).set(handoffTimeKey(order), key);
      const collect = deleteWith(kv, op, garbage);
      return { op, value: { result: { handoff, appendedBytes: add.byteLength }, collect } };
    });
    await collectAfter(collect);
    await reportLanded(progress, steps, "appended");
    return result;
  } catch (error) {
    // Staged chunks a failed abandon leaves behind are swept after their TTL.
    await staged?.abandon().catch(() => {});
    throw error;
  }
}

function tooLargeAppend(
  what: string,
  key: string,
  have: number,
  add: number,
  limits: HandoffLimits,
): StoreError {
  return new StoreError(
    "too_large",
    `${what}: "${key}" holds ${have} bytes and the chunk is ${add} bytes; together ${
      have + add
    } bytes, but at most ${limits.conversationMaxBytes} bytes (HANDOFF_CONVERSATION_MAX_BYTES) are allowed. Nothing was appended`,
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
  const items = records.flatMap((r, i) =>
    r.value && r.value.order === page.items[i].key[1] ? [r.value] : []
  );
  return { ...page, items };
}

/** Adds a comment; at most `commentsMax` per handoff. */
export async function addComment(
  kv: Deno.Kv,
  limits: HandoffLimits,
  key: string,
  content: string,
  author?: string,
): Promise<{ comment: HandoffComment; count: number }> {
  const what = "Cannot add comment";
  validateKey(key, limits, what);
  const text = checkText(
    content,
    "content",
    limits.commentMaxBytes,
    "HANDOFF_COMMENT_MAX_BYTES",
    what,
  )
    .trim();
  if (text === "") invalid(`${what}: content must not be empty`);
  const by = optionalLine(author, "author", limits.nameMaxChars, what);
  const id = ulid();
  return await commitWithRetry(async () => {
    const current = await kv.get<Handoff>(handoffKey(key));
    if (current.value === null) throw notFound(what, key);
    const h = current.value;
    if (h.commentIds.length >= limits.commentsMax) {
      throw new StoreError(
        "full",
        `${what}: "${key}" already has ${h.commentIds.length} comments; at most ${limits.commentsMax} (HANDOFF_COMMENTS_MAX) are allowed. Delete one with handoff_delete_comment first`,
      );
    }
    const comment: HandoffComment = { id, author: by, content: text, createdAt: nowIso() };
    const op = kv.atomic().check(current)
      .check({ key: handoffCommentKey(key, id), versionstamp: null })
      .set(handoffCommentKey(key, id), comment)
      .set(handoffKey(key), { ...h, commentIds: [...h.commentIds, id] });
    return { op, value: { comment, count: h.commentIds.length + 1 } };
  });
}

/** Deletes one comment by its id. */
export async function deleteComment(
  kv: Deno.Kv,
  limits: HandoffLimits,
  key: string,
  commentId: string,
): Promise<{ comment: HandoffComment; count: number }> {
  const what = "Cannot delete comment";
  validateKey(key, limits, what);
  return await commitWithRetry(async () => {
    const current = await kv.get<Handoff>(handoffKey(key));
    if (current.value === null) throw notFound(what, key);
    const h = current.value;
    const comment = h.commentIds.includes(commentId)
      ? (await kv.get<HandoffComment>(handoffCommentKey(key, commentId))).value
      : null;
    if (comment === null) {
      throw new StoreError(
        "not_found",
        `${what}: "${key}" has no comment with id "${
          clip(commentId)
        }" (handoff_load lists comment ids)`,
      );
    }
    const commentIds = h.commentIds.filter((id) => id !== commentId);
    const op = kv.atomic().check(current)
      .delete(handoffCommentKey(key, commentId))
      .set(handoffKey(key), { ...h, commentIds });
    return { op, value: { comment, count: commentIds.length } };
  });
}

/** Deletes one handoff with its conversation and comments; returns what was deleted. */
export async function deleteHandoff(
  kv: Deno.Kv,
  limits: HandoffLimits,
  key: string,
): Promise<Handoff> {
  const what = "Cannot delete handoff";
  validateKey(key, limits, what);
  const { handoff, collect } = await commitWithRetry(async () => {
    const [current, count] = await kv.getMany<[Handoff, number]>([
      handoffKey(key),
      handoffCountKey(),
    ]);
    if (current.value === null) throw notFound(what, key);
    const op = kv.atomic().check(current, count)
      .set(handoffCountKey(), Math.max(0, (count.value ?? 1) - 1));
    const garbage: Deno.KvKey[] = [];
    removeInto(op, garbage, current.value);
    const collect = deleteWith(kv, op, garbage);
    return { op, value: { handoff: current.value, collect } };
  });
  await collectAfter(collect);
  return handoff;
}

/** Deletes every handoff, one atomic per handoff; returns how many were deleted. */
export async function clearHandoffs(kv: Deno.Kv, limits: HandoffLimits): Promise<number> {
  let deleted = 0;
  for (;;) {
    const page = await listPage<string>(kv, handoffTimePrefix(), { limit: 50 });
    if (page.items.length === 0) break;
    for (const entry of page.items) {
      try {
        await deleteHandoff(kv, limits, entry.value);
        deleted++;
      } catch (error) {
        if (!(error instanceof StoreError && error.kind === "not_found")) throw error;
        // Deleted concurrently, or a stale index entry: drop the entry if it is still there.
        const op = kv.atomic().check(entry).delete(entry.key);
        await retryLocked(() => op.commit());
      }
    }
  }
  while (await sweepPendingDeletes(kv) > 0);
  return deleted;
}

/** Counts, sizes and limits of the store. */
export interface HandoffStats {
  count: number;
  maxHandoffs: number;
  /** `count / maxHandoffs`, 0–1. */
  fullness: number;
  evictWhenFull: boolean;
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
  const count = (await kv.get<number>(handoffCountKey())).value ?? 0;
  const byStatus: Record<HandoffStatus, number> = { active: 0, completed: 0, pending: 0 };
  let totalBytes = 0;
  let totalMessages = 0;
  let totalComments = 0;
  let largest: HandoffStats["largest"] = null;
  let first: Handoff | null = null;
  let last: Handoff | null = null;
  for await (
    const { value: h } of kv.list<Handoff>({ prefix: handoffPrefix() }, { batchSize: 500 })
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
  for await (const lease of kv.list<Lease>({ prefix: ["handoff_lease"] })) {
    if (lease.value.until > now) merging++;
  }
  return {
    count,
    maxHandoffs: limits.maxHandoffs,
    fullness: Math.round((count / limits.maxHandoffs) * 1000) / 1000,
    evictWhenFull: limits.evictWhenFull,
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
