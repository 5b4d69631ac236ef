/**
 * Cutting a read to the result budget (`RESULT_MAX_TOKENS`): items are taken in order while both
 * views of the result stay within it; the rest is read on with `cursor`. An entity too large for
 * a page on its own is shown alone with its observations cut, and the result says so. The cursor
 * names the tool, the graph and the arguments it belongs to, so it cannot read on another read.
 */

import { jsonToken, parseJsonToken } from "../kit/base64url.ts";
import { estimateTokens } from "../kit/budget.ts";
import { AppError } from "../kit/errors.ts";
import type { Entity, Relation } from "./store_keys.ts";
import type { GraphItem } from "./store_read.ts";

/** The fields of a graph result that hold text other sessions wrote (tools and resources alike). */
export const GRAPH_UNTRUSTED_PATHS = [
  "entities[].name",
  "entities[].entityType",
  "entities[].observations[]",
  "relations[].from",
  "relations[].to",
  "relations[].relationType",
];

/** Estimated tokens kept aside for what a page says beside its items (notices, notes). */
const RESERVE_TOKENS = 1_500;

/** A page in the official shape, with how to read on. */
export interface GraphPage {
  entities: Entity[];
  relations: Relation[];
  has_more: boolean;
  /** Pass as `cursor` to read on; present with `has_more`. */
  next_cursor?: string;
  /** Entities shown with some observations cut (each too large for a page). */
  cut: string[];
}

/** What a cursor holds: whose read it continues, and where. */
export interface CursorState<P> {
  tool: string;
  graph: string;
  /** A digest of the read's arguments (the query, the names). */
  args: string;
  at: P;
}

/** Encodes a cursor. */
export function encodeCursor<P>(state: CursorState<P>): string {
  return jsonToken(state);
}

/**
 * Decodes `cursor` for `tool` on `graph` with `args`, or throws saying what is wrong. A cursor is
 * the client's text: `valid` checks its position, so a forged one is refused, not walked.
 */
export function decodeCursor<P>(
  cursor: string,
  tool: string,
  graph: string,
  args: string,
  valid: (at: unknown) => at is P,
): P {
  const state = parseJsonToken(cursor) as CursorState<P> | undefined;
  if (typeof state !== "object" || state === null || !valid(state.at)) {
    throw new AppError(
      "invalid",
      `cursor is not one this server gave: pass next_cursor as it was returned`,
    );
  }
  if (state.tool !== tool || state.graph !== graph || state.args !== args) {
    throw new AppError(
      "invalid",
      `cursor belongs to another read (another tool, graph or arguments): call ${tool} again with the arguments that returned it, or without cursor to start over`,
    );
  }
  return state.at;
}

/** True when `at` is a position in a list: a whole number from 0. */
export function isIndex(at: unknown): at is number {
  return Number.isSafeInteger(at) && (at as number) >= 0;
}

/** A short digest of a read's arguments, for its cursor. */
export function digest(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(36);
}

/** Estimated tokens an item takes in the text view (pretty JSON, nested two levels). */
function itemTokens(item: GraphItem): number {
  const pretty = JSON.stringify("entity" in item ? item.entity : item.relation, null, 2);
  let lines = 1;
  for (let i = 0; i < pretty.length; i++) if (pretty.charCodeAt(i) === 10) lines++;
  return estimateTokens(pretty) + lines + 2;
}

/** `entity` with as many observations as fit `tokens`, and a last one saying how many are cut. */
function cutEntity(entity: Entity, tokens: number): Entity {
  const kept: string[] = [];
  let used = estimateTokens(entity.name) + estimateTokens(entity.entityType) + 60;
  for (const o of entity.observations) {
    const cost = estimateTokens(o) + 4;
    if (used + cost > tokens) break;
    kept.push(o);
    used += cost;
  }
  const left = entity.observations.length - kept.length;
  kept.push(`[… ${left} more observations not shown: they do not fit RESULT_MAX_TOKENS]`);
  return { ...entity, observations: kept };
}

/**
 * Takes items from `items` while they fit `budget` tokens; `encode` turns the position after the
 * last item taken into the cursor that reads on.
 */
export async function takePage<P>(
  items: AsyncIterable<{ item: GraphItem; at: P }>,
  budget: number,
  encode: (at: P) => string,
): Promise<GraphPage> {
  const room = Math.max(budget - RESERVE_TOKENS, 200);
  const page: GraphPage = { entities: [], relations: [], has_more: false, cut: [] };
  let used = 0;
  let last: P | undefined;
  for await (const { item, at } of items) {
    const cost = itemTokens(item);
    const empty = page.entities.length + page.relations.length === 0;
    if (used + cost > room && !empty) {
      page.has_more = true;
      page.next_cursor = encode(last as P);
      return page;
    }
    if ("entity" in item) {
      if (cost > room) {
        page.entities.push(cutEntity(item.entity, room));
        page.cut.push(item.entity.name);
      } else page.entities.push(item.entity);
    } else page.relations.push(item.relation);
    used += cost;
    last = at;
  }
  return page;
}

/** The items of `all` from position `from` on, each with the position after it. */
export async function* fromPosition(
  all: readonly GraphItem[],
  from: number,
): AsyncGenerator<{ item: GraphItem; at: number }> {
  for (let i = from; i < all.length; i++) yield { item: all[i], at: i + 1 };
}
