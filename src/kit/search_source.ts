/**
 * The one interface between the toolsets and the search index (`src/search/`), so neither
 * imports the other: a toolset's store adds ONE pending entry to the atomic that writes or
 * deletes a record (`indexRecord`, `indexLater`, `unindex`), and its toolset declares a
 * `SearchSource` per kind saying how an item is read back. `src/toolsets.ts` hands the sources
 * to the search toolset. All index keys live under the one top-level prefix `SEARCH_PREFIX`.
 */

import { ulid } from "./ids.ts";

/** The top-level KV prefix of every index key (pending entries, segments, blocks, refs). */
export const SEARCH_PREFIX = "search";

/**
 * Key of one pending entry: ULIDs sort by time, so the folder takes them oldest first. Entries
 * that replace or drop what the index holds go to the `qd` stream, which every query reads on its
 * own (up to `SEARCH_PENDING_SCAN` entries, as `q`), however long the backlog of new records is:
 * an acknowledged delete or overwrite is not shown while a large database is being indexed.
 */
export function pendingKey(id: string, replaces = false): Deno.KvKey {
  return [SEARCH_PREFIX, replaces ? "qd" : "q", id];
}

/** Where an item belongs, for filters (each optional: not every kind records each). */
export interface IndexMeta {
  workspace?: string;
  project_id?: string;
  /** The resolved caller name that wrote it, as the table records it. */
  author?: string;
  /** How the author was established (`oauth`, `token`, `header`, `local`, `console`, …). */
  via?: string;
}

/** One item as the index sees it: its text split into passages, the first carrying the title. */
export interface IndexDoc {
  kind: string;
  /** The item's id within its kind, as key parts (strings): `fetch` gets it back. */
  ref: string[];
  title: string;
  /** Body passages (the title is indexed with the first, weighted). At least one. */
  passages: string[];
  meta: IndexMeta;
  /** ISO-8601 creation time: filters and the recency tie-break. */
  created_at: string;
  /** When the record expires (ms since epoch), for kinds written with an expiry. */
  expires_at?: number;
}

/**
 * A pending entry: an item to (re)index, a pointer the folder loads through the kind's source
 * (`load: true`, for texts too large to copy into the write's atomic), or tombstones
 * (`drop`: `[kind, ...refPrefix]` lists whose items leave the index).
 */
export interface PendingEntry {
  doc?: IndexDoc;
  load?: { kind: string; ref: string[] };
  drop?: string[][];
}

/**
 * A doc whose texts take more than this many bytes as KV stores them goes as a pointer, not
 * inline: a pending entry is one KV value (64 KiB at most), and a large handoff is read back by
 * the folder instead.
 */
export const INLINE_MAX_BYTES = 56_000;

/** Bytes KV (V8 serialization) takes for `text`: one a unit if all are Latin-1, else two. */
function storedBytes(text: string): number {
  // deno-lint-ignore no-control-regex
  return /^[\u0000-\u00ff]*$/.test(text) ? text.length : text.length * 2;
}

const indexing = { on: true };

/** Turns indexing on or off for this process (`SEARCH_INDEX=off`); read once at start. */
export function setSearchIndexing(on: boolean): void {
  indexing.on = on;
}

/** Whether writes add pending entries. */
export function searchIndexingOn(): boolean {
  return indexing.on;
}

/**
 * Adds the one pending mutation that indexes `doc`; `replaces` when it may overwrite an item
 * already indexed (a decision resolved, a task's new detail, a north star set again).
 */
export function indexRecord(op: Deno.AtomicOperation, doc: IndexDoc, replaces = false): void {
  if (!indexing.on) return;
  let bytes = 1_000 + storedBytes(doc.title);
  for (const p of doc.passages) bytes += storedBytes(p);
  const entry: PendingEntry = bytes > INLINE_MAX_BYTES
    ? { load: { kind: doc.kind, ref: doc.ref } }
    : { doc };
  setPending(op, entry, replaces, doc.expires_at);
}

/** Adds the one pending mutation that has the folder read item `ref` of `kind` back and index it. */
export function indexLater(
  op: Deno.AtomicOperation,
  kind: string,
  ref: string[],
  replaces = false,
): void {
  if (!indexing.on) return;
  setPending(op, { load: { kind, ref } }, replaces);
}

/** Adds the one pending mutation that drops every item under each `[kind, ...refPrefix]`. */
export function unindex(op: Deno.AtomicOperation, prefixes: string[][]): void {
  if (!indexing.on || prefixes.length === 0) return;
  setPending(op, { drop: prefixes }, true);
}

function setPending(
  op: Deno.AtomicOperation,
  entry: PendingEntry,
  replaces: boolean,
  expiresAt?: number,
): void {
  const options = expiresAt === undefined
    ? undefined
    : { expireIn: Math.max(1, expiresAt - Date.now()) };
  op.set(pendingKey(ulid(), replaces), entry, options);
}

/** An item read back whole, for `fetch` and the console's item page. */
export interface FetchedItem {
  title: string;
  /** The whole text, as a person would read it (markdown-ish plain text). */
  text: string;
  meta: IndexMeta;
  created_at: string;
  /** The MCP resource URI where one exists. */
  uri?: string;
  /** Extra facts shown beside the text (status, kind, …). */
  facts?: Record<string, string>;
}

/** How one kind is read back and enumerated; a toolset declares one per kind it indexes. */
export interface SearchSource {
  /** The kind, as ids and the `kinds` filter name it (`message`, `decision`, …). */
  kind: string;
  /** Whether its items can be overwritten or deleted (the folder then keeps a ref index). */
  mutable: boolean;
  /** The item as the index should hold it now, or null when it no longer exists. */
  load(kv: Deno.Kv, ref: string[]): Promise<IndexDoc | null>;
  /** The whole item, or null when it no longer exists. */
  fetch(kv: Deno.Kv, ref: string[]): Promise<FetchedItem | null>;
  /**
   * Every item's ref in a stable order, starting after `after` (exclusive), for indexing an
   * existing database in resumable steps.
   */
  scan(kv: Deno.Kv, after: string[] | undefined): AsyncIterable<string[]>;
  /** The MCP resource URI where one shows the item, if its toolset serves one. */
  uri?(ref: string[]): string;
}

/** Longest passage, in UTF-16 units: long texts are split so snippets and BM25 stay local. */
export const PASSAGE_MAX = 2_000;

/**
 * `text` split into passages of at most `max` units, at the last line break (else space) before
 * the limit; `boundary` lines (a conversation's `## User`) start a new passage when the current
 * one is at least half full.
 */
export function splitPassages(
  text: string,
  max = PASSAGE_MAX,
  boundary: RegExp = /^## /,
): string[] {
  const out: string[] = [];
  let current = "";
  for (const line of text.split("\n")) {
    if (boundary.test(line) && current.length >= max / 2) {
      out.push(current);
      current = "";
    }
    let rest = current === "" ? line : `${current}\n${line}`;
    while (rest.length > max) {
      let cut = rest.lastIndexOf("\n", max);
      if (cut < max / 2) cut = rest.lastIndexOf(" ", max);
      if (cut < max / 2) cut = max;
      out.push(rest.slice(0, cut));
      rest = rest.slice(cut).replace(/^[\n ]/, "");
    }
    current = rest;
  }
  if (current.trim() !== "" || out.length === 0) out.push(current);
  return out;
}
