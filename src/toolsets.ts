/** The one list of toolsets this build can serve, in the order their tools are registered. */

import { focusToolset } from "./focus/toolset.ts";
import { handoffToolset } from "./handoff/toolset.ts";
import { memoryToolset } from "./memory/toolset.ts";
import type { Toolset, ToolsetDefinition } from "./tools/toolset.ts";
import { tableToolsetDefinition } from "./table/toolset.ts";
import { thinkingToolset } from "./thinking/toolset.ts";
import { searchToolsetDefinition } from "./search/toolset.ts";
import { reindex, startIndexer } from "./search/indexer.ts";
import { loadSearchSettings } from "./search/settings.ts";
import { type SearchSource, setSearchIndexing } from "./kit/search_source.ts";
import type { EnvSource } from "./kit/env.ts";
import { AppError } from "./kit/errors.ts";

const FEATURES: readonly ToolsetDefinition[] = [
  focusToolset,
  handoffToolset,
  thinkingToolset,
  tableToolsetDefinition,
  memoryToolset,
];

/** Every kind the toolsets index for search, one source each. */
export const SEARCH_SOURCES: readonly SearchSource[] = FEATURES.flatMap((t) =>
  t.searchSources ?? []
);

/** Every toolset, in registration order: the features, then search over all of them. */
export const TOOLSETS: readonly ToolsetDefinition[] = [
  ...FEATURES,
  searchToolsetDefinition(SEARCH_SOURCES),
];

/** The names of every toolset, in registration order. */
export const TOOLSET_NAMES: readonly string[] = TOOLSETS.map((t) => t.name);

/**
 * Parses a comma list of toolset names (`undefined` or empty means all of them) into the known
 * names in registration order; throws naming `what` and the allowed names.
 */
export function parseToolsetNames(raw: string | undefined, what: string): string[] {
  const names = (raw ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "");
  if (names.length === 0) return [...TOOLSET_NAMES];
  for (const name of names) {
    if (!TOOLSET_NAMES.includes(name)) {
      throw new Error(
        `${what} has unknown toolset "${name}": allowed are ${TOOLSET_NAMES.join(", ")}`,
      );
    }
  }
  return TOOLSET_NAMES.filter((name) => names.includes(name));
}

/**
 * The toolsets `TOOLSETS` enables, each with its own settings read from `env`. Unset, every
 * toolset is loaded and those off by default (`byDefault: false`) are marked so: a connector
 * reaches them by naming them (`?toolsets=memory`). Named in `TOOLSETS`, a toolset is on.
 */
export function loadToolsets(env: { get(name: string): string | undefined }): Toolset[] {
  // Writes index whichever toolsets are served: SEARCH_INDEX alone turns it off.
  setSearchIndexing(loadSearchSettings(env).enabled);
  const raw = env.get("TOOLSETS");
  const names = parseToolsetNames(raw, "TOOLSETS");
  const named = (raw ?? "").trim() !== "";
  return TOOLSETS.filter((t) => names.includes(t.name)).map((t) => {
    const toolset = t.load(env);
    return named || t.byDefault !== false ? toolset : { ...toolset, byDefault: false };
  });
}

/** What a connector that names no toolset gets: the enabled toolsets that are on by default. */
export function defaultSelection(enabled: readonly Toolset[]): Toolset[] {
  return enabled.filter((t) => t.byDefault !== false);
}

/**
 * The enabled toolsets a client narrowed to with `?toolsets=a,b` (`asked`, `null` when absent);
 * it can never widen them. Throws an `invalid` `AppError` naming what is enabled.
 */
export function selectToolsets(asked: string | null, enabled: readonly Toolset[]): Toolset[] {
  if (asked === null) return defaultSelection(enabled);
  let names: string[];
  try {
    names = parseToolsetNames(asked, "The toolsets query parameter");
  } catch (error) {
    throw new AppError("invalid", (error as Error).message);
  }
  const on = enabled.map((t) => t.name);
  const off = names.filter((name) => !on.includes(name));
  if (off.length > 0) {
    throw new AppError(
      "invalid",
      `Toolset ${off.join(", ")} is not enabled on this server; enabled: ${on.join(", ")}`,
    );
  }
  return enabled.filter((t) => names.includes(t.name));
}

/** Runs each toolset's start-up `prepare` (its migrations) on `kv`, in registration order. */
export async function prepareToolsets(toolsets: readonly Toolset[], kv: Deno.Kv): Promise<void> {
  for (const toolset of toolsets) await toolset.prepare?.(kv);
}

/**
 * Starts the search index's background work in this process (indexing an existing database,
 * then folding pending entries) unless `SEARCH_INDEX=off`; it stops when `signal` aborts.
 */
export function startSearchIndexer(kv: Deno.Kv, env: EnvSource, signal?: AbortSignal): void {
  const settings = loadSearchSettings(env);
  if (!settings.enabled) return;
  startIndexer(kv, SEARCH_SOURCES, {
    foldMs: settings.foldMs,
    batch: settings.foldBatch,
    signal,
  });
}

/** Rebuilds the whole search index from the records (deno task reindex; import calls it). */
export function reindexSearch(
  kv: Deno.Kv,
  log?: (line: string) => void,
): Promise<{ items: number; passages: number; ms: number }> {
  return reindex(kv, SEARCH_SOURCES, log);
}
