/**
 * Search and fetch as the tools and the console use them: input checks (each limit named),
 * ids (`<kind>:<ref parts>`), cursors, snippets, links. No MCP here.
 */

import { estimateJsonTokens } from "../kit/budget.ts";
import { AppError } from "../kit/errors.ts";
import type { FetchedItem } from "../kit/search_source.ts";
import type { Sources } from "./fold.ts";
import { type Filters, type Hit, rank } from "./query.ts";
import type { SearchSettings } from "./settings.ts";
import { snippetOf } from "./snippet.ts";
import { type ParsedQuery, parseQuery } from "./words.ts";
import { jsonToken, parseJsonToken } from "../kit/base64url.ts";

/** What `search` takes. */
export interface SearchInput {
  query: string;
  kinds?: string[];
  workspace?: string;
  project_id?: string;
  author?: string;
  after?: string;
  before?: string;
  limit?: number;
  cursor?: string;
}

/** One result: ChatGPT's `id`, `title`, `url`, and ours beside them. */
export interface SearchResult {
  id: string;
  title: string;
  url: string;
  kind: string;
  snippet: string;
  score: number;
  author: string | null;
  via: string | null;
  workspace: string | null;
  project_id: string | null;
  created_at: string;
  uri: string | null;
}

/** A page of results. */
export interface SearchAnswer {
  results: SearchResult[];
  has_more: boolean;
  next_cursor: string | null;
  pending: number;
  indexing: "on" | "off";
  notes: string[];
}

/** The id `fetch` accepts for item `ref` of `kind`. */
export function itemId(kind: string, ref: string[]): string {
  return `${kind}:${ref.map(encodeURIComponent).join("/")}`;
}

/** `id` back to its kind and ref; refuses a malformed id or an unknown kind. */
export function parseItemId(id: string, sources: Sources): { kind: string; ref: string[] } {
  const colon = id.indexOf(":");
  const kind = colon === -1 ? "" : id.slice(0, colon);
  if (!sources.has(kind) || colon === id.length - 1) {
    throw new AppError(
      "invalid",
      `id "${
        id.slice(0, 100)
      }" is not a search result id: ids look like <kind>:<parts>, kinds are ${
        [...sources.keys()].join(", ")
      }`,
    );
  }
  try {
    return { kind, ref: id.slice(colon + 1).split("/").map(decodeURIComponent) };
  } catch {
    throw new AppError("invalid", `id "${id.slice(0, 100)}" has a malformed part`);
  }
}

/** Where links point: the console's read-only item page (the whole id in one path segment). */
export function itemPath(kind: string, ref: string[]): string {
  return `/console/item/${encodeURIComponent(itemId(kind, ref))}`;
}

/** Runs a search. */
export async function search(
  kv: Deno.Kv,
  sources: Sources,
  settings: SearchSettings,
  base: string,
  input: SearchInput,
): Promise<SearchAnswer> {
  const q = checkQuery(input.query, settings);
  const filters = checkFilters(input, sources);
  const limit = input.limit ?? 10;
  if (!Number.isInteger(limit) || limit < 1 || limit > settings.limitMax) {
    throw new AppError(
      "invalid",
      `limit must be a whole number from 1 to ${settings.limitMax} (SEARCH_LIMIT_MAX)`,
    );
  }
  const fingerprint = JSON.stringify([input.query, filters]);
  const offset = input.cursor === undefined ? 0 : readCursor(input.cursor, fingerprint);
  const ranked = await rank(kv, q, filters, offset + limit + 1, {
    postingsMax: settings.postingsMax,
    pendingScan: settings.pendingScan,
  });
  const page = ranked.hits.slice(offset, offset + limit);
  let hasMore = ranked.hits.length > offset + limit;
  const notes: string[] = [];
  if (!settings.enabled) {
    notes.push("Indexing is off (SEARCH_INDEX=off): new writes are not found.");
  }
  if (ranked.pending > 0) {
    notes.push(`${ranked.pending} large items are written but not searchable yet (seconds).`);
  }
  if (ranked.capped.length > 0) {
    notes.push(
      `Terms ${
        ranked.capped.join(", ")
      } match more than ${settings.postingsMax} passages (SEARCH_POSTINGS_MAX): only the newest were ranked.`,
    );
  }
  const answer: SearchAnswer = {
    results: page.map((hit) => resultOf(hit, q, sources, base)),
    has_more: hasMore,
    next_cursor: hasMore ? makeCursor(fingerprint, offset + limit) : null,
    pending: ranked.pending,
    indexing: settings.enabled ? "on" : "off",
    notes,
  };
  // Both views are this object as JSON: drop results from the end until it fits the budget.
  let cut = false;
  while (answer.results.length > 1 && estimateJsonTokens(answer) > settings.resultMaxTokens - 500) {
    answer.results.pop();
    cut = hasMore = true;
  }
  if (cut) {
    answer.has_more = true;
    answer.next_cursor = makeCursor(fingerprint, offset + answer.results.length);
    notes.push(
      `Fewer results than asked, to stay within RESULT_MAX_TOKENS (${settings.resultMaxTokens}).`,
    );
  }
  return answer;
}

function checkQuery(query: string, s: SearchSettings) {
  if (typeof query !== "string" || query.trim() === "") {
    throw new AppError("invalid", "query is empty: give the words to look for");
  }
  if (Array.from(query).length > s.queryMaxChars) {
    throw new AppError(
      "invalid",
      `query is longer than ${s.queryMaxChars} characters (SEARCH_QUERY_MAX_CHARS)`,
    );
  }
  const q = parseQuery(query);
  if (q.terms.length === 0) {
    throw new AppError("invalid", "query has no words: give at least one word to look for");
  }
  if (q.terms.length > s.queryMaxTerms) {
    throw new AppError(
      "invalid",
      `query has ${q.terms.length} terms, more than ${s.queryMaxTerms} (SEARCH_QUERY_MAX_TERMS)`,
    );
  }
  return q;
}

function checkFilters(input: SearchInput, sources: Sources): Filters {
  const f: Filters = {};
  if (input.kinds !== undefined && input.kinds.length > 0) {
    for (const k of input.kinds) {
      if (!sources.has(k)) {
        throw new AppError(
          "invalid",
          `kinds has unknown kind "${k}": allowed are ${[...sources.keys()].join(", ")}`,
        );
      }
    }
    f.kinds = input.kinds;
  }
  if (input.workspace !== undefined) f.workspace = input.workspace.trim().toLowerCase();
  if (input.project_id !== undefined) f.project_id = input.project_id;
  if (input.author !== undefined) f.author = input.author;
  if (input.after !== undefined) f.after = checkDate("after", input.after);
  if (input.before !== undefined) f.before = checkDate("before", input.before);
  return f;
}

function checkDate(name: string, value: string): number {
  const ms = /^\d{4}-\d{2}-\d{2}/.test(value) ? Date.parse(value) : NaN;
  if (!Number.isFinite(ms)) {
    throw new AppError(
      "invalid",
      `${name} "${
        value.slice(0, 40)
      }" is not an ISO-8601 date: use 2026-12-07 or 2026-12-07T10:00:00Z`,
    );
  }
  return ms;
}

function makeCursor(fingerprint: string, offset: number): string {
  return jsonToken({ h: hash(fingerprint), o: offset });
}

function readCursor(cursor: string, fingerprint: string): number {
  const state = parseJsonToken(cursor) as { h?: unknown; o?: unknown } | null | undefined;
  const o = state?.o;
  if (state?.h === hash(fingerprint) && Number.isInteger(o) && (o as number) >= 0) {
    return o as number;
  }
  throw new AppError(
    "invalid",
    "cursor is not from this query: pass next_cursor from a search with the same query and filters",
  );
}

function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/** An item read back whole, or a not-found error naming the id. */
export async function fetchItem(
  kv: Deno.Kv,
  sources: Sources,
  id: string,
): Promise<{ kind: string; ref: string[]; item: FetchedItem }> {
  const { kind, ref } = parseItemId(id, sources);
  const item = await sources.get(kind)!.fetch(kv, ref);
  if (item === null) {
    throw new AppError(
      "not_found",
      `no item ${id.slice(0, 200)}: it does not exist or was deleted; search again for current ids`,
    );
  }
  return { kind, ref, item };
}

/** One hit as a result: ChatGPT's fields first, then ours. */
function resultOf(
  { doc, score }: Hit,
  q: ParsedQuery,
  sources: Sources,
  base: string,
): SearchResult {
  return {
    id: itemId(doc.k, doc.r),
    title: doc.t,
    url: base + itemPath(doc.k, doc.r),
    kind: doc.k,
    snippet: snippetOf(doc.x === "" ? doc.t : doc.x, q),
    score: Math.round(score * 1000) / 1000,
    author: doc.m.a ?? null,
    via: doc.m.v ?? null,
    workspace: doc.m.w ?? null,
    project_id: doc.m.pr ?? null,
    created_at: new Date(doc.c).toISOString(),
    uri: sources.get(doc.k)?.uri?.(doc.r) ?? null,
  };
}
