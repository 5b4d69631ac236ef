/**
 * What every table store module shares: the store's context, input checks that name the limit,
 * counters and participant bookkeeping written inside the caller's atomic.
 */

import { atomic } from "../kit/commit.ts";
import type { Caller } from "../kit/caller.ts";
import type { NoticeBus } from "../kit/notices.ts";
import { AppError } from "../kit/errors.ts";
import { isUlid, ulid } from "../kit/ids.ts";
import { getAll, listEntries } from "../kit/reads.ts";
import { checkId, checkLine, checkText, checkVisible } from "../kit/text.ts";
import { SETTING_OF, type TableSettings, workspaceProblem } from "./settings.ts";
import { type Author, authorOf, type CountName, keys } from "./store_schema.ts";
// Declares the shapes of the table's records, which the kit's read helpers then check.
import "./store_shapes.ts";

/**
 * What every store function needs: KV, the settings (limits, clock), and the notice bus its
 * writes tell (none in store tests that do not listen).
 */
export interface TableCtx {
  kv: Deno.Kv;
  settings: TableSettings;
  notices?: NoticeBus;
}

/** The store context of one process (or test): `kv`, `settings`, the bus. */
export function tableCtx(kv: Deno.Kv, settings: TableSettings, notices?: NoticeBus): TableCtx {
  return { kv, settings, notices };
}

/** A workspace and whether the caller named it or the default applied. */
export interface WorkspaceChoice {
  workspace: string;
  workspace_source: "caller" | "default";
}

/** The workspace a call names (lower case: names compare case-insensitively), or the default. */
export function chooseWorkspace(ctx: TableCtx, asked: string | undefined): WorkspaceChoice {
  if (asked === undefined) {
    return { workspace: ctx.settings.defaultWorkspace, workspace_source: "default" };
  }
  const problem = workspaceProblem(asked, ctx.settings.limits.nameMaxChars);
  if (problem) throw new AppError("invalid", `workspace "${clip(asked)}": ${problem}`);
  return { workspace: asked.trim().toLowerCase(), workspace_source: "caller" };
}

/** Checks a one-line title against the title limit; returns it trimmed. */
export function checkTitle(ctx: TableCtx, name: string, title: string): string {
  return checkLine(title, ctx.settings.limits.titleMaxChars, { name });
}

/**
 * Checks a text body against the byte limit `limit` (its error names the limit's setting). Blank
 * text is refused: an empty message or context would read as a silent loss.
 */
export function checkBody(
  ctx: TableCtx,
  name: string,
  text: string,
  limit: "messageMaxBytes" | "bodyMaxBytes" | "reasonMaxBytes",
): string {
  checkText(text, ctx.settings.limits[limit], { name, setting: SETTING_OF[limit] });
  if (text.trim() === "") throw new AppError("invalid", `${name} must not be empty or blank`);
  return text;
}

/**
 * Checks a participant name (`to`, `assigned_to`): one line, at most 140 characters, nothing
 * invisible (`bob\u200B` would look like bob's and never reach him); trimmed.
 */
export function checkName(ctx: TableCtx, name: string, value: string): string {
  const checked = checkLine(value, ctx.settings.limits.nameMaxChars, { name });
  checkVisible(checked, { name });
  return checked;
}

/** Checks an id: not blank, well-formed; an id that cannot exist is reported as not found. */
export function checkUlid(name: string, id: string): string {
  checkId(id, 64, { name });
  if (!isUlid(id)) {
    throw new AppError("not_found", `No ${name.replace(/_id$/, "")} has id "${clip(id)}"`);
  }
  return id;
}

/** The record `entry` holds, or a not-found error naming its id and the tool that lists them. */
export function requireRecord<T>(
  entry: Deno.KvEntryMaybe<T>,
  what: string,
  id: string,
  listedBy: string,
): T {
  if (entry.value === null) {
    throw new AppError("not_found", `No ${what} has id ${id}: ${listedBy} lists them`);
  }
  return entry.value;
}

/** Checks a list `limit` (an integer from 1 to the page maximum); returns the default if unset. */
export function checkLimit(ctx: TableCtx, limit: number | undefined): number {
  const { pageDefault, pageMax } = ctx.settings.limits;
  if (limit === undefined) return pageDefault;
  if (!Number.isInteger(limit) || limit < 1 || limit > pageMax) {
    throw new AppError(
      "invalid",
      `limit must be a whole number from 1 to ${pageMax}, got ${limit}`,
    );
  }
  return limit;
}

/** Refuses a record from another workspace than the call's. */
export function sameWorkspace(what: string, id: string, found: string, expected: string): void {
  if (found !== expected) {
    throw new AppError(
      "invalid",
      `${what} ${id} is in workspace "${found}", not "${expected}": pass workspace="${found}" or choose a ${what} of this workspace`,
    );
  }
}

/** The first 60 characters of `text`, for quoting bad input in an error. */
export function clip(text: string): string {
  const chars = [...text.toWellFormed()];
  return chars.length > 60 ? `${chars.slice(0, 60).join("")}…` : chars.join("");
}

const U64 = 2n ** 64n;

/** Adds `delta` (may be negative: KV sums wrap modulo 2^64) to a workspace counter. */
export function bump(op: Deno.AtomicOperation, ws: string, name: CountName, delta: number): void {
  if (delta === 0) return;
  const value = delta > 0 ? BigInt(delta) : U64 + BigInt(delta);
  op.sum(keys.count(ws, name), value);
}

/** Reads a counter's value (0 when absent); a sum that wrapped below zero would read huge. */
export function countValue(entry: Deno.KvEntryMaybe<unknown>): number {
  const v = entry.value;
  if (v instanceof Deno.KvU64) {
    return v.value >= U64 / 2n ? -Number(U64 - v.value) : Number(v.value);
  }
  return 0;
}

/**
 * Records that `caller` spoke (a message) or acted (any other write) in `ws`, and under which
 * `via` and client id it was seen. Counters are sums and sightings blind sets, so participants
 * never make two writers conflict.
 */
export function noteParticipant(
  op: Deno.AtomicOperation,
  ws: string,
  caller: Caller,
  what: "messages" | "actions",
): Author {
  const author = authorOf(caller);
  op.sum(keys.spoke(ws, caller.name, what), 1n);
  op.set(keys.seen(ws, author), author);
  return author;
}

/** The ids an index under `prefix` holds, newest first, at most `limit` (all without one). */
export async function indexedIds(
  ctx: TableCtx,
  prefix: Deno.KvKey,
  limit?: number,
): Promise<string[]> {
  const ids: string[] = [];
  for await (const e of listEntries<string>(ctx.kv, { prefix }, { reverse: true, limit })) {
    ids.push(e.value);
  }
  return ids;
}

/** The records under `keyOf(id)` for `ids`, in order; an id whose record is gone is skipped. */
export async function readRecords<T>(
  ctx: TableCtx,
  ids: string[],
  keyOf: (id: string) => Deno.KvKey,
): Promise<T[]> {
  return (await getAll<T>(ctx.kv, ids.map((id) => keyOf(id))))
    .flatMap((e) => e.value === null ? [] : [e.value]);
}

/** The records an index under `prefix` points at, newest first, at most `limit`. */
export async function readIndexed<T>(
  ctx: TableCtx,
  prefix: Deno.KvKey,
  keyOf: (id: string) => Deno.KvKey,
  limit?: number,
): Promise<T[]> {
  return await readRecords<T>(ctx, await indexedIds(ctx, prefix, limit), keyOf);
}

/**
 * One page of the records an index under `prefix` points at, newest first, how many there are
 * and whether the page left some out. Without `keep` the index alone gives the total and only
 * the page's records are read; a filter has to see every record. With `after` (an id), the page
 * starts at the next older record: ids are ULIDs, so "older" is "smaller", even for an id whose
 * record is gone.
 */
export async function pageIndexed<T extends { id: string }>(
  ctx: TableCtx,
  prefix: Deno.KvKey,
  keyOf: (id: string) => Deno.KvKey,
  limit: number,
  keep?: (record: T) => boolean,
  after?: string,
): Promise<{ page: T[]; has_more: boolean; total: number }> {
  if (after !== undefined) checkUlid("after_id", after);
  const older = (id: string) => after === undefined || id < after;
  const ids = await indexedIds(ctx, prefix);
  if (keep === undefined) {
    const rest = ids.filter(older);
    const page = await readRecords<T>(ctx, rest.slice(0, limit), keyOf);
    return { page, has_more: rest.length > limit, total: ids.length };
  }
  const all = (await readRecords<T>(ctx, ids, keyOf)).filter(keep);
  const rest = all.filter((r) => older(r.id));
  return { page: rest.slice(0, limit), has_more: rest.length > limit, total: all.length };
}

/**
 * Starts the atomic that creates a record under a new id (`keyOf(id)` must still be absent),
 * with the caller noted as acting in `ws`.
 */
export function newRecord(
  ctx: TableCtx,
  ws: string,
  caller: Caller,
  keyOf: (id: string) => Deno.KvKey,
  op: Deno.AtomicOperation = atomic(ctx.kv),
): { id: string; op: Deno.AtomicOperation; author: Author } {
  const id = ulid(ctx.settings.now());
  op.check({ key: keyOf(id), versionstamp: null });
  return { id, op, author: noteParticipant(op, ws, caller, "actions") };
}
