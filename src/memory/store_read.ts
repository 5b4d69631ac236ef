/**
 * Reading a graph: `read_graph`, `search_nodes` and `open_nodes`, each as a stream of entities
 * then relations that `page.ts` cuts to the result budget. `read_graph` walks keys (its cursor
 * is the last key shown, so writes between pages never repeat or skip what stays); the other two
 * rank or order a bounded set and page through it by position.
 */

import { getAll, listAll, listEntries } from "../kit/reads.ts";
import {
  entitiesPrefix,
  type Entity,
  entityKey,
  type EntityRecord,
  type Relation,
  relationOfInKey,
  relationOfKey,
  relationsInPrefix,
  relationsPrefix,
} from "./store_keys.ts";
import type { GraphCopies } from "./store_snapshot.ts";
import type { MemoryCtx } from "./store_write.ts";

/** One item of a read: an entity or a relation. */
export type GraphItem = { entity: Entity } | { relation: Relation };

/** Where `read_graph` stands: in the entities or the relations, after a key. */
export interface GraphPosition {
  phase: "e" | "r";
  /** The last key part(s) shown in this phase. */
  after?: string[];
}

/** True when `at` is a `GraphPosition` (a cursor's, checked before its keys are walked). */
export function isGraphPosition(at: unknown): at is GraphPosition {
  const p = at as Partial<GraphPosition> | null;
  if (typeof p !== "object" || p === null || (p.phase !== "e" && p.phase !== "r")) return false;
  if (p.after === undefined) return true;
  return Array.isArray(p.after) && p.after.length === (p.phase === "e" ? 1 : 3) &&
    p.after.every((part) => typeof part === "string");
}

/** Every entity then every relation of `graph` from `from` on, with each one's position. */
export async function* walkGraph(
  ctx: MemoryCtx,
  graph: string,
  from: GraphPosition,
): AsyncGenerator<{ item: GraphItem; at: GraphPosition }> {
  if (from.phase === "e") {
    const prefix = entitiesPrefix(graph);
    const start = from.after ? [...prefix, ...from.after] : undefined;
    for await (
      const e of listEntries<EntityRecord>(ctx.kv, start ? { prefix, start } : { prefix })
    ) {
      const name = e.key[e.key.length - 1] as string;
      if (start && name === from.after![0]) continue;
      yield { item: { entity: entityOf(name, e.value) }, at: { phase: "e", after: [name] } };
    }
  }
  const prefix = relationsPrefix(graph);
  const after = from.phase === "r" ? from.after : undefined;
  const start = after ? [...prefix, ...after] : undefined;
  for await (const e of listEntries(ctx.kv, start ? { prefix, start } : { prefix })) {
    const r = relationOfKey(e.key);
    if (after && r.from === after[0] && r.to === after[1] && r.relationType === after[2]) continue;
    yield { item: { relation: r }, at: { phase: "r", after: [r.from, r.to, r.relationType] } };
  }
}

/** An entity in the official shape, from its record (checked). */
export function entityOf(name: string, value: unknown): Entity {
  const record = value as EntityRecord;
  return { name, entityType: record.entityType, observations: [...record.observations] };
}

/** How well an entity matches `q`, from its lower-cased fields: name first, then type, observations. */
function relevance(lower: readonly string[], q: string): number {
  const [name, type] = lower;
  let score = name === q ? 1000 : name.startsWith(q) ? 500 : name.includes(q) ? 300 : 0;
  if (type.includes(q)) score += 100;
  let hits = 0;
  for (let j = 2; j < lower.length; j++) if (lower[j].includes(q)) hits++;
  return score + Math.min(hits, 50);
}

function byKey(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * `search_nodes`: every entity whose name, type or an observation contains `query` (ignoring
 * case, as upstream), best match first (ties by name), then the relations touching them.
 */
export async function searchGraph(
  ctx: MemoryCtx,
  copies: GraphCopies,
  graph: string,
  query: string,
): Promise<GraphItem[]> {
  const q = query.toLowerCase();
  const copy = await copies.read(ctx.kv, graph);
  const matched: { entity: Entity; score: number }[] = [];
  for (const { entity, lower } of copy.entities.values()) {
    if (lower.some((field) => field.includes(q))) {
      matched.push({ entity, score: relevance(lower, q) });
    }
  }
  matched.sort((a, b) => b.score - a.score || byKey(a.entity.name, b.entity.name));
  const names = new Set(matched.map((m) => m.entity.name));
  const relations = [...copy.relations.entries()]
    .filter(([, r]) => names.has(r.from) || names.has(r.to))
    .sort(([a], [b]) => byKey(a, b));
  return [
    ...matched.map((m) => ({ entity: m.entity })),
    ...relations.map(([, relation]) => ({ relation })),
  ];
}

/** `open_nodes`: the named entities that exist, in the order named, then relations touching them. */
export async function openGraph(
  ctx: MemoryCtx,
  graph: string,
  names: readonly string[],
): Promise<GraphItem[]> {
  const unique = [...new Set(names)];
  const read = await getAll<EntityRecord>(ctx.kv, unique.map((n) => entityKey(graph, n)));
  const entities: Entity[] = [];
  read.forEach((entry, i) => {
    if (entry.value !== null) entities.push(entityOf(unique[i], entry.value));
  });
  return [...entities.map((entity) => ({ entity })), ...await touching(ctx, graph, entities)];
}

/** Beyond this many entities, one list of every relation beats two lists per entity. */
const PER_ENTITY_LISTS_MAX = 40;

/** The relations with at least one endpoint among `entities`, in key order. */
async function touching(ctx: MemoryCtx, graph: string, entities: Entity[]): Promise<GraphItem[]> {
  const names = new Set(entities.map((e) => e.name));
  const found = new Map<string, Relation>();
  const add = (r: Relation) => found.set(JSON.stringify([r.from, r.to, r.relationType]), r);
  if (names.size > PER_ENTITY_LISTS_MAX) {
    for await (const e of listEntries(ctx.kv, { prefix: relationsPrefix(graph) })) {
      const r = relationOfKey(e.key);
      if (names.has(r.from) || names.has(r.to)) add(r);
    }
  } else {
    const lists = await Promise.all([...names].flatMap((n) => [
      listAll(ctx.kv, { prefix: relationsPrefix(graph, n) }),
      listAll(ctx.kv, { prefix: relationsInPrefix(graph, n) }),
    ]));
    lists.forEach((entries, i) => {
      for (const e of entries) add(i % 2 === 0 ? relationOfKey(e.key) : relationOfInKey(e.key));
    });
  }
  return [...found.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, relation]) => ({ relation }));
}
