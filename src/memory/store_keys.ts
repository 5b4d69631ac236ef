/**
 * The memory toolset's KV keys and records, one builder per key shape. A graph is one name;
 * every key of a graph starts with its family and the graph's name, so graphs never mix.
 *
 * - `["memory_graph", graph]`: the graph's record (counts, times). Every write to the graph
 *   rewrites it and checks it, so writes to one graph are serialised and none is lost.
 * - `["memory_entity", graph, name]`: an entity (type, observations in order).
 * - `["memory_relation", graph, from, to, relationType]`: a relation.
 * - `["memory_relation_in", graph, to, from, relationType]`: the same relation by its target,
 *   so deleting an entity finds the relations that point at it (same atomic as the relation).
 */

import { AppError } from "../kit/errors.ts";
import { count, defineRecords, list, obj, type Shape, str } from "../kit/record_shapes.ts";

/** The graph's record; `entities` and `relations` are kept in every write's atomic. */
export interface GraphRecord {
  entities: number;
  relations: number;
  created_at: string;
  updated_at: string;
}

/** An entity as stored (its name is its key). */
export interface EntityRecord {
  entityType: string;
  observations: string[];
  created_at: string;
  updated_at: string;
  /** The caller name that created it. */
  created_by: string;
}

/** A relation as stored (its endpoints and type are its key). */
export interface RelationRecord {
  created_at: string;
  created_by: string;
}

/** An entity in the official server's shape. */
export interface Entity {
  name: string;
  entityType: string;
  observations: string[];
}

/** A relation in the official server's shape. */
export interface Relation {
  from: string;
  to: string;
  relationType: string;
}

/** The graph record's key. */
export function graphKey(graph: string): Deno.KvKey {
  return ["memory_graph", graph];
}

/** Every graph record (the list of graphs). */
export const GRAPHS_PREFIX: Deno.KvKey = ["memory_graph"];

/** An entity's key. */
export function entityKey(graph: string, name: string): Deno.KvKey {
  return ["memory_entity", graph, name];
}

/** Every entity of a graph, by name. */
export function entitiesPrefix(graph: string): Deno.KvKey {
  return ["memory_entity", graph];
}

/** A relation's key. */
export function relationKey(graph: string, r: Relation): Deno.KvKey {
  return ["memory_relation", graph, r.from, r.to, r.relationType];
}

/** Every relation of a graph, or (with `from`) every relation starting at `from`. */
export function relationsPrefix(graph: string, from?: string): Deno.KvKey {
  return from === undefined ? ["memory_relation", graph] : ["memory_relation", graph, from];
}

/** A relation's entry in the by-target index. */
export function relationInKey(graph: string, r: Relation): Deno.KvKey {
  return ["memory_relation_in", graph, r.to, r.from, r.relationType];
}

/** Every relation ending at `to`, in the by-target index. */
export function relationsInPrefix(graph: string, to: string): Deno.KvKey {
  return ["memory_relation_in", graph, to];
}

/** The relation a `memory_relation` key names (its parts checked where it was read). */
export function relationOfKey(key: Deno.KvKey): Relation {
  const [, , from, to, relationType] = key as string[];
  return { from, to, relationType };
}

/** The relation a `memory_relation_in` key names (its parts checked where it was read). */
export function relationOfInKey(key: Deno.KvKey): Relation {
  const [, , to, from, relationType] = key as string[];
  return { from, to, relationType };
}

/** Most characters of a graph name. */
export const GRAPH_NAME_MAX = 64;

/**
 * What is wrong with `name` as a graph name, or `undefined`: 1–64 of `a-z 0-9 . _ -` (names are
 * lower-cased first, so `Work` and `work` are one graph).
 */
export function graphNameProblem(name: string): string | undefined {
  if (!/^[a-z0-9._-]{1,64}$/.test(name)) {
    return `must be 1–${GRAPH_NAME_MAX} characters of a-z, 0-9, ".", "_" and "-", got ${
      JSON.stringify(name.slice(0, 80))
    }`;
  }
  return undefined;
}

/** `raw` lower-cased and checked as a graph name; throws an `AppError` naming `what`. */
export function checkGraphName(raw: string, what: string): string {
  const name = raw.trim().toLowerCase();
  const problem = graphNameProblem(name);
  if (problem) throw new AppError("invalid", `${what} ${problem}`);
  return name;
}

/** `true`: the value of an index entry that only points. */
const marker: Shape = (v) => v === true ? undefined : "expected true";

// The memory families' shapes: the kit's read helpers refuse a damaged record as `damaged`
// (naming its key), and import checks every line of these families.
defineRecords({
  memory_graph: { key: ["string"], value: obj({ entities: count, relations: count }) },
  memory_entity: {
    key: ["string", "string"],
    value: obj({ entityType: str, observations: list(str) }),
  },
  memory_relation: { key: ["string", "string", "string", "string"], value: obj({}) },
  memory_relation_in: { key: ["string", "string", "string", "string"], value: marker },
});
