/**
 * Reading a sequence back: its live record, a summary with its branches, and pages of its
 * thoughts in history order (or newest first) behind an opaque cursor.
 */

import type { ThinkingLimits } from "./settings.ts";
import { getAll, listAll, readKey } from "../kit/reads.ts";
import { checkId } from "../kit/text.ts";
import { fail, sequenceNotFound } from "./store_errors.ts";
import {
  branchPrefix,
  type BranchRecord,
  branchThoughtPrefix,
  isSequenceId,
  MAIN_BRANCH,
  sequenceKey,
  type SequenceRecord,
  thoughtKey,
  thoughtPrefix,
  type ThoughtRecord,
} from "./store_keys.ts";
import { type Clock, live, retentionOf } from "./store_retention.ts";
import { readTexts } from "./store_text.ts";
import { decodeCursor, historyCursor } from "./store_history_cursor.ts";

/** The live sequence record, or `null` when unknown, malformed, being deleted or expired. */
export async function getSequence(
  kv: Deno.Kv,
  limits: ThinkingLimits,
  sequenceId: string,
  clock: Clock = Date.now,
): Promise<SequenceRecord | null> {
  if (!isSequenceId(sequenceId)) return null;
  const entry = await readKey<SequenceRecord>(kv, sequenceKey(sequenceId));
  return live(entry.value, limits, clock());
}

/** A branch as history shows it. */
export interface BranchSummary {
  branchId: string;
  parentBranchId: string;
  branchFromThought: number;
  /** History index of the fork point. */
  branchFromIndex: number;
  /** History index of the branch's first thought. */
  firstIndex: number;
  thoughts: number;
  createdAt: string;
}

/** A sequence as history shows it. */
export interface SequenceSummary {
  sequenceId: string;
  title: string;
  createdAt: string;
  updatedAt: string;
  completed: boolean;
  thoughtHistoryLength: number;
  mainThoughts: number;
  revisionCount: number;
  lastThoughtNumber: number;
  totalThoughts: number;
  branches: BranchSummary[];
  /** When the sequence expires without further writes, or `null` when kept until deleted. */
  expiresAt: string | null;
}

/** One thought as history shows it, with its whole text (or the start of it, when truncated). */
export interface HistoryThought extends Omit<ThoughtRecord, "text" | "parts"> {
  thought: string;
  /** True when only the first `maxCharacters` characters are shown. */
  truncated: boolean;
  /** When the page starts inside this thought: how many of its characters earlier pages showed. */
  fromCharacter?: number;
  /** True when the page ends inside this thought (cut to the result budget): it goes on next. */
  continues?: boolean;
}

/** Options of one history page. */
export interface HistoryOptions {
  limit?: number;
  cursor?: string;
  order?: "asc" | "desc";
  /** Only the thoughts recorded on this branch ("main" for the main line). */
  branchId?: string;
  maxCharacters?: number;
}

/** One page of a sequence's history. */
export interface HistoryPage {
  sequence: SequenceSummary;
  thoughts: HistoryThought[];
  order: "asc" | "desc";
  branchId: string | null;
  /** Opaque cursor of the next page, or `null` at the end. */
  nextCursor: string | null;
}

function summarize(
  seq: SequenceRecord,
  branches: BranchRecord[],
  limits: ThinkingLimits,
): SequenceSummary {
  const counts = new Map(seq.branches.map((b) => [b.id, b.thoughts]));
  const order = new Map(seq.branches.map((b, i) => [b.id, i]));
  const retention = retentionOf(seq, limits);
  return {
    sequenceId: seq.id,
    title: seq.title,
    createdAt: seq.createdAt,
    updatedAt: seq.updatedAt,
    completed: seq.completed,
    thoughtHistoryLength: seq.thoughtCount,
    mainThoughts: seq.mainThoughts,
    revisionCount: seq.revisionCount,
    lastThoughtNumber: seq.lastThoughtNumber,
    totalThoughts: seq.totalThoughts,
    branches: branches
      .filter((b) => order.has(b.id))
      .sort((a, b) => order.get(a.id)! - order.get(b.id)!)
      .map((b) => ({
        branchId: b.id,
        parentBranchId: b.parentId,
        branchFromThought: b.forkThought,
        branchFromIndex: b.forkIndex,
        firstIndex: b.createdIndex,
        thoughts: counts.get(b.id) ?? 0,
        createdAt: b.createdAt,
      })),
    expiresAt: retention > 0 ? new Date(Date.parse(seq.updatedAt) + retention).toISOString() : null,
  };
}

function checkPage(name: string, value: number, max: number): void {
  if (!Number.isInteger(value) || value < 1 || value > max) {
    fail("INVALID_PAGE", `${name} must be a whole number from 1 to ${max}, got ${value}`);
  }
}

/**
 * One page of a sequence's thoughts in history order (or newest first), within `limit`
 * thoughts and `maxCharacters` of thought text. A page always holds at least one thought when
 * any remain: a thought longer than the budget comes alone, truncated to it, and the page's
 * cursor reads on from where it was cut.
 */
export async function getHistory(
  kv: Deno.Kv,
  limits: ThinkingLimits,
  sequenceId: string,
  options: HistoryOptions = {},
  clock: Clock = Date.now,
): Promise<HistoryPage> {
  const limit = options.limit ?? limits.historyPageDefault;
  const maxCharacters = options.maxCharacters ?? limits.historyCharactersDefault;
  checkPage("limit", limit, limits.historyPageMax);
  checkPage("maxCharacters", maxCharacters, limits.historyCharactersMax);
  const order = options.order ?? "asc";
  const branch = options.branchId ?? null;
  if (branch !== null) {
    checkId(branch, limits.branchIdMax, { name: "branchId", code: "BRANCH_ID_INVALID" });
  }
  const at = options.cursor ? decodeCursor(options.cursor, order, branch) : undefined;
  const after = at?.after;

  const seq = await getSequence(kv, limits, sequenceId, clock);
  if (seq === null) sequenceNotFound(sequenceId);
  checkBranch(seq, branch);
  const branchRecords = (await listAll<BranchRecord>(kv, { prefix: branchPrefix(sequenceId) }))
    .map((e) => e.value);
  const mainFrom = mainIndexFrom(seq, branchRecords);
  const records = await listThoughts(kv, sequenceId, branch, order, after, limit + 1, mainFrom);
  const page = fitPage(records, limit, maxCharacters, at?.chars ?? 0);
  const texts = await readTexts(kv, sequenceId, page);
  const thoughts = page.map((record, i): HistoryThought => {
    const { text: _text, parts: _parts, ...rest } = record;
    // A cursor cut inside the first thought resumes it where the previous page stopped.
    const from = i === 0 && at?.chars ? Math.min(at.chars, record.characters) : 0;
    const text = from > 0 ? [...texts[i]].slice(from).join("") : texts[i];
    const truncated = record.characters - from > maxCharacters;
    return {
      ...rest,
      thought: truncated ? [...text].slice(0, maxCharacters).join("") : text,
      truncated,
      ...(from > 0 ? { fromCharacter: from } : {}),
    };
  });
  const more = records.length > page.length;
  const last = page.at(-1);
  // A thought longer than maxCharacters comes alone and cut: the cursor resumes it at the cut.
  const cut = thoughts.length === 1 && thoughts[0].truncated ? thoughts[0] : undefined;
  if (cut !== undefined) {
    const before = order === "asc" ? cut.index - 1 : cut.index + 1;
    return {
      sequence: summarize(seq, branchRecords, limits),
      thoughts,
      order,
      branchId: branch,
      nextCursor: historyCursor(order, branch, before, (cut.fromCharacter ?? 0) + maxCharacters),
    };
  }
  return {
    sequence: summarize(seq, branchRecords, limits),
    thoughts,
    order,
    branchId: branch,
    nextCursor: more && last ? historyCursor(order, branch, last.index) : null,
  };
}

/** Refuses a branch filter naming no branch of `seq`. */
function checkBranch(seq: SequenceRecord, branch: string | null): void {
  if (branch === null || branch === MAIN_BRANCH || seq.branches.some((b) => b.id === branch)) {
    return;
  }
  fail(
    "BRANCH_NOT_FOUND",
    `sequence "${seq.id}" has no branch "${branch}"; its branches: ${
      [MAIN_BRANCH, ...seq.branches.map((b) => b.id)].join(", ")
    }`,
  );
}

/**
 * The history index from which the main line has per-branch index entries: that of the first
 * branch's first thought (every thought before it is on the main line); `undefined` while the
 * sequence has no branch (see `hasBranchEntry`).
 */
function mainIndexFrom(seq: SequenceRecord, branches: BranchRecord[]): number | undefined {
  if (seq.branches.length === 0) return undefined;
  const ours = branches.filter((b) => seq.branches.some((s) => s.id === b.id));
  // Every branch has its record; without one, the index alone is all there is to go by.
  return ours.length === 0 ? 1 : Math.min(...ours.map((b) => b.createdIndex));
}

/**
 * Up to `count` thought records after history index `after` in `order`: of the whole sequence,
 * or (through the per-branch index) of one branch. The main line's index starts at `mainFrom`
 * (see `mainIndexFrom`); its thoughts before that are read from the sequence's thoughts.
 */
async function listThoughts(
  kv: Deno.Kv,
  sequenceId: string,
  branch: string | null,
  order: "asc" | "desc",
  after: number | undefined,
  count: number,
  mainFrom: number | undefined,
): Promise<ThoughtRecord[]> {
  const [low, high] = after === undefined
    ? [1, Infinity]
    : order === "asc"
    ? [after + 1, Infinity]
    : [1, after];
  if (branch !== MAIN_BRANCH) {
    return await listRange(kv, sequenceId, branch, low, high, order, count);
  }
  const from = mainFrom ?? Infinity;
  const early = (n: number) => listRange(kv, sequenceId, null, low, Math.min(high, from), order, n);
  const late = (n: number) =>
    listRange(kv, sequenceId, MAIN_BRANCH, Math.max(low, from), high, order, n);
  const first = await (order === "asc" ? early : late)(count);
  const rest = await (order === "asc" ? late : early)(count - first.length);
  return [...first, ...rest];
}

/**
 * Up to `count` thought records with history indexes from `low` to below `high`, in `order`: of
 * the whole sequence (`branch` null), or through the index of `branch`.
 */
async function listRange(
  kv: Deno.Kv,
  sequenceId: string,
  branch: string | null,
  low: number,
  high: number,
  order: "asc" | "desc",
  count: number,
): Promise<ThoughtRecord[]> {
  if (low >= high || count <= 0) return [];
  const prefix = branch === null
    ? thoughtPrefix(sequenceId)
    : branchThoughtPrefix(sequenceId, branch);
  const selector: Deno.KvListSelector = high === Infinity
    ? { prefix, start: [...prefix, low] }
    : { start: [...prefix, low], end: [...prefix, high] };
  const listed = await listAll<ThoughtRecord | number>(kv, selector, {
    limit: count,
    reverse: order === "desc",
  });
  if (branch === null) return listed.map((e) => e.value as ThoughtRecord);
  const entries = await getAll<ThoughtRecord>(
    kv,
    listed.map((e) => thoughtKey(sequenceId, e.value as number)),
  );
  return entries.flatMap((e) => e.value === null ? [] : [e.value]);
}

/**
 * The leading records that fit `limit` thoughts and `maxCharacters` of text (of the first, what
 * is left after `firstFrom`); always at least one, so a page advances even through a thought
 * longer than the budget.
 */
function fitPage(
  records: ThoughtRecord[],
  limit: number,
  maxCharacters: number,
  firstFrom: number,
): ThoughtRecord[] {
  const page: ThoughtRecord[] = [];
  let budget = maxCharacters;
  for (const record of records) {
    if (page.length === limit) break;
    // The first thought may resume inside itself: only what is left of it counts.
    const characters = record.characters - (page.length === 0 ? firstFrom : 0);
    if (page.length > 0 && characters > budget) break;
    page.push(record);
    budget -= characters;
  }
  return page;
}
