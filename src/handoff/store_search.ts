/**
 * `handoff_search`: every record is read in one range scan and filtered as it streams; when a
 * text query must look into conversations, their chunks are read in one streaming range scan
 * (many candidates) or by batched point reads (few), one conversation at a time.
 */

import type { HandoffLimits } from "./settings.ts";
import { concatBytes } from "../kit/chunks.ts";
import { readWhole } from "./store_read.ts";
import { type Handoff, handoffChunkPrefix, handoffPrefix } from "./store_schema.ts";
import { checkStatus, clip, normalizeTags } from "./store_validate.ts";
import { characterCount, checkWellFormed } from "../kit/text.ts";
import { invalid } from "../kit/errors.ts";
import { listEntries } from "../kit/reads.ts";

/** Filters of `searchHandoffs`; all given ones must match. */
export interface SearchFilter {
  /** At least one of these tags. */
  tags?: string[];
  /** All of these tags. */
  tagsAll?: string[];
  /** Case-insensitive text in the title, summary or conversation. */
  query?: string;
  /** Case-insensitive part of `from_project`. */
  fromProject?: string;
  /** Case-insensitive part of `from_ai`. */
  fromAi?: string;
  status?: string;
  /** ISO-8601 date or time; created at or after it. */
  createdAfter?: string;
  /** ISO-8601 date or time; created before it. */
  createdBefore?: string;
  limit: number;
  /** Only matches saved before this one: the `order` of the last match a page showed. */
  before?: string;
}

/** Matches of a search, newest first. */
export interface SearchResult {
  items: Handoff[];
  hasMore: boolean;
  /** How many handoffs were looked at. */
  scanned: number;
}

/** Longest search query, in characters. */
export const QUERY_MAX_CHARS = 1000;
/** From this many conversations to search on, one range scan of all chunks beats point reads. */
export const CHUNK_SCAN_FROM = 64;

const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

/** `YYYY-MM-DD`, optionally `THH:MM[:SS[.fff]]`, optionally `Z` or `±HH:MM`. */
const ISO_DATE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * Milliseconds of an ISO-8601 date or time. Without a zone it is UTC, like every stored time
 * (not the server's local time); a day that is not on the calendar is refused.
 */
function checkDate(value: string | undefined, field: string, what: string): number | null {
  if (value === undefined || value.trim() === "") return null;
  const m = value.trim().match(ISO_DATE);
  const [year, month, day, hour, minute, second] = (m?.slice(1, 7) ?? []).map((p) =>
    Number(p ?? 0)
  );
  const ms = m?.[7] ? Number(`0.${m[7]}`) * 1000 : 0;
  const utc = Date.UTC(year, month - 1, day, hour, minute, second, ms);
  const onCalendar = m !== null && month >= 1 && month <= 12 && hour <= 23 && minute <= 59 &&
    second <= 59 && new Date(utc).getUTCDate() === day;
  if (!onCalendar) {
    invalid(
      `${what}: ${field} must be an ISO-8601 date or time in UTC unless it names its zone (e.g. 2025-01-31, 2025-01-31T12:00:00Z or 2025-01-31T14:00+02:00), got "${
        clip(value)
      }"`,
    );
  }
  const zone = m[8]?.toUpperCase();
  if (zone === undefined || zone === "Z") return utc;
  const sign = zone[0] === "-" ? -1 : 1;
  const digits = zone.slice(1).replace(":", "");
  return utc - sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000;
}

/** A case-insensitive (Unicode case folding) literal matcher for `query`. */
function matcherOf(query: string): RegExp {
  return new RegExp(query.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&"), "iu");
}

/**
 * Handoffs matching every given filter, most recently saved first, at most `limit` of them.
 * A query is looked for in the title and summary first and only then in the conversation.
 */
export async function searchHandoffs(
  kv: Deno.Kv,
  limits: HandoffLimits,
  filter: SearchFilter,
): Promise<SearchResult> {
  const what = "Cannot search handoffs";
  const anyTags = normalizeTags(filter.tags, { ...limits, tagsMax: 100 }, what);
  const allTags = normalizeTags(filter.tagsAll, { ...limits, tagsMax: 100 }, what);
  for (
    const [name, value] of [
      ["query", filter.query],
      ["from_project", filter.fromProject],
      ["from_ai", filter.fromAi],
    ] as const
  ) {
    if (value !== undefined) checkWellFormed(value, { name, what });
  }
  const query = filter.query?.trim() ?? "";
  if (characterCount(query) > QUERY_MAX_CHARS) {
    invalid(`${what}: query is longer than ${QUERY_MAX_CHARS} characters`);
  }
  const fromProject = filter.fromProject?.trim().toLowerCase() ?? "";
  const fromAi = filter.fromAi?.trim().toLowerCase() ?? "";
  const status = filter.status === undefined ? null : checkStatus(filter.status, what);
  const after = checkDate(filter.createdAfter, "created_after", what);
  const before = checkDate(filter.createdBefore, "created_before", what);
  const matcher = query === "" ? null : matcherOf(query);

  const meta = (h: Handoff) => {
    if (anyTags.length > 0 && !anyTags.some((t) => h.tags.includes(t))) return false;
    if (!allTags.every((t) => h.tags.includes(t))) return false;
    if (status !== null && h.status !== status) return false;
    if (fromProject && !(h.fromProject ?? "").toLowerCase().includes(fromProject)) return false;
    if (fromAi && !(h.fromAi ?? "").toLowerCase().includes(fromAi)) return false;
    const created = Date.parse(h.createdAt);
    if (after !== null && created < after) return false;
    if (before !== null && created >= before) return false;
    return true;
  };

  const matches: Handoff[] = [];
  const needText = new Map<string, Handoff>();
  let scanned = 0;
  for await (
    const entry of listEntries<Handoff>(kv, { prefix: handoffPrefix() }, { batchSize: 500 })
  ) {
    scanned++;
    const h = entry.value;
    if (!meta(h)) continue;
    if (matcher === null || matcher.test(h.title) || matcher.test(h.summary)) matches.push(h);
    else needText.set(h.key, h);
  }
  if (matcher !== null && needText.size > 0) {
    const found = needText.size >= CHUNK_SCAN_FROM
      ? await scanChunks(kv, needText, matcher)
      : await readEach(kv, [...needText.values()], matcher);
    matches.push(...found);
  }
  matches.sort((a, b) => b.order.localeCompare(a.order));
  const cursor = filter.before;
  const rest = cursor === undefined ? matches : matches.filter((h) => h.order < cursor);
  return {
    items: rest.slice(0, filter.limit),
    hasMore: rest.length > filter.limit,
    scanned,
  };
}

/** Tests each handoff's conversation, read by point reads, ten chunks per read. */
async function readEach(kv: Deno.Kv, handoffs: Handoff[], matcher: RegExp): Promise<Handoff[]> {
  const found: Handoff[] = [];
  await Promise.all(handoffs.map(async (h) => {
    if (await conversationMatches(kv, h, matcher)) found.push(h);
  }));
  return found;
}

async function conversationMatches(kv: Deno.Kv, h: Handoff, matcher: RegExp): Promise<boolean> {
  const whole = await readWhole(kv, h.key);
  return whole !== null && matcher.test(decoder.decode(whole.bytes));
}

/**
 * Streams every chunk once (keys group them by handoff), assembles the conversations of
 * `wanted` in their records' chunk order and tests each as soon as it is complete. A handoff
 * whose chunks changed under the scan is read again on its own.
 */
async function scanChunks(
  kv: Deno.Kv,
  wanted: Map<string, Handoff>,
  matcher: RegExp,
): Promise<Handoff[]> {
  const found: Handoff[] = [];
  const recheck: Handoff[] = [];
  let current: { h: Handoff; parts: Map<string, Uint8Array> } | null = null;
  const finish = () => {
    if (current === null) return;
    const { h, parts } = current;
    current = null;
    const ordered = h.chunks.map((c) => parts.get(c.id));
    if (ordered.some((p) => p === undefined)) {
      recheck.push(h);
      return;
    }
    if (matcher.test(decoder.decode(concatBytes(ordered as Uint8Array[])))) found.push(h);
  };
  const prefix = handoffChunkPrefix();
  for await (const entry of listEntries<Uint8Array>(kv, { prefix }, { batchSize: 500 })) {
    const key = String(entry.key[1]);
    if (current?.h.key !== key) {
      finish();
      const h = wanted.get(key);
      if (h === undefined) continue;
      wanted.delete(key);
      current = { h, parts: new Map() };
    }
    current!.parts.set(String(entry.key[2]), entry.value);
  }
  finish();
  // Handoffs whose chunks the scan did not see complete (changed meanwhile, or none seen).
  recheck.push(...wanted.values());
  found.push(...await readEach(kv, recheck, matcher));
  return found;
}
