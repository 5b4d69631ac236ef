/**
 * The memory toolset's settings: the graph a connector uses when it names none, and the limits
 * every graph keeps. Each limit is a `MEMORY_*` variable, named in the error that enforces it.
 */

import { type EnvSource, intVar } from "../kit/env.ts";
import { checkGraphName, graphNameProblem } from "./store_keys.ts";

/** Limits of one graph and of one call. */
export interface MemoryLimits {
  /** Most entities one graph holds (`MEMORY_ENTITIES_MAX`). */
  entitiesMax: number;
  /** Most relations one graph holds (`MEMORY_RELATIONS_MAX`). */
  relationsMax: number;
  /** Most observations one entity holds (`MEMORY_OBSERVATIONS_MAX`). */
  observationsMax: number;
  /** Most UTF-8 bytes of one entity: name, type and observations (`MEMORY_ENTITY_MAX_BYTES`). */
  entityMaxBytes: number;
  /** Most UTF-8 bytes of one name, entity type or relation type (`MEMORY_NAME_MAX_BYTES`). */
  nameMaxBytes: number;
  /** Most UTF-8 bytes of one observation (`MEMORY_OBSERVATION_MAX_BYTES`). */
  observationMaxBytes: number;
  /** Most items (entities, relations, names, entries) in one call (`MEMORY_ITEMS_MAX`). */
  itemsMax: number;
  /** Longest `search_nodes` query, in characters (`MEMORY_QUERY_MAX`). */
  queryMax: number;
}

/** The memory toolset's settings. */
export interface MemorySettings {
  /** The graph of a connector that names none (`MEMORY_GRAPH`, default `default`). */
  defaultGraph: string;
  /** Text bytes of whole graphs a process keeps for search_nodes (`MEMORY_CACHE_BYTES`; 0: off). */
  cacheBytes: number;
  limits: MemoryLimits;
}

/** The setting that names each limit, for errors. */
export const MEMORY_SETTING_OF: Record<keyof MemoryLimits, string> = {
  entitiesMax: "MEMORY_ENTITIES_MAX",
  relationsMax: "MEMORY_RELATIONS_MAX",
  observationsMax: "MEMORY_OBSERVATIONS_MAX",
  entityMaxBytes: "MEMORY_ENTITY_MAX_BYTES",
  nameMaxBytes: "MEMORY_NAME_MAX_BYTES",
  observationMaxBytes: "MEMORY_OBSERVATION_MAX_BYTES",
  itemsMax: "MEMORY_ITEMS_MAX",
  queryMax: "MEMORY_QUERY_MAX",
};

/** The defaults. An entity is one KV value, so its bytes stay well under KV's 64 KiB. */
export const DEFAULT_MEMORY_LIMITS: MemoryLimits = {
  entitiesMax: 50_000,
  relationsMax: 200_000,
  observationsMax: 500,
  entityMaxBytes: 32_768,
  nameMaxBytes: 512,
  observationMaxBytes: 4_096,
  itemsMax: 100,
  queryMax: 1_000,
};

/** Reads the memory settings; throws an `Error` naming a bad variable. */
export function loadMemorySettings(env: EnvSource): MemorySettings {
  const d = DEFAULT_MEMORY_LIMITS;
  const s = MEMORY_SETTING_OF;
  const defaultGraph = (env.get("MEMORY_GRAPH") ?? "").trim().toLowerCase() || "default";
  const problem = graphNameProblem(defaultGraph);
  if (problem) throw new Error(`MEMORY_GRAPH ${problem}`);
  return {
    defaultGraph,
    cacheBytes: intVar(env, "MEMORY_CACHE_BYTES", 32 * 1024 * 1024, 0, 4 * 1024 * 1024 * 1024),
    limits: {
      entitiesMax: intVar(env, s.entitiesMax, d.entitiesMax, 1, 1_000_000),
      relationsMax: intVar(env, s.relationsMax, d.relationsMax, 1, 5_000_000),
      observationsMax: intVar(env, s.observationsMax, d.observationsMax, 1, 10_000),
      // An entity is one KV value (at most 64 KiB with its bookkeeping).
      entityMaxBytes: intVar(env, s.entityMaxBytes, d.entityMaxBytes, 1_024, 60_000),
      // A relation's key holds three names and must stay under KV's 2 KiB key limit.
      nameMaxBytes: intVar(env, s.nameMaxBytes, d.nameMaxBytes, 16, 600),
      observationMaxBytes: intVar(env, s.observationMaxBytes, d.observationMaxBytes, 16, 60_000),
      // Each item may be a check or a few mutations of one atomic (KV: 100 checks, 1,000 mutations).
      itemsMax: intVar(env, s.itemsMax, d.itemsMax, 1, 200),
      queryMax: intVar(env, s.queryMax, d.queryMax, 1, 10_000),
    },
  };
}

/** The graph a call uses: `?graph=` on the connector's URL, else `MEMORY_GRAPH`. */
export function graphOf(call: unknown, settings: MemorySettings): string {
  const req = (call as { http?: { req?: Request } } | undefined)?.http?.req;
  return graphOfQuery(req?.url ? new URL(req.url).searchParams : undefined, settings);
}

/** The graph a connector URL's `query` chooses (`?graph=`), else `MEMORY_GRAPH`. */
export function graphOfQuery(query: URLSearchParams | undefined, settings: MemorySettings): string {
  const asked = query?.get("graph") ?? null;
  return asked === null || asked === "" ? settings.defaultGraph : checkGraphName(asked, "graph");
}
