/**
 * Every change to a graph: one atomic that checks and rewrites the graph's record, so writes to a
 * graph are serialised (a concurrent writer's commit fails its check and the attempt is read and
 * tried again): no write is lost and no reader sees half of one. A call that changes nothing
 * writes nothing.
 */

import type { Caller } from "../kit/caller.ts";
import { atomic, commitWithRetry } from "../kit/commit.ts";
import { AppError } from "../kit/errors.ts";
import { getAll, listAll, readKey } from "../kit/reads.ts";
import { nowIso } from "../kit/time.ts";
import { bumpNotices } from "../kit/notice_feed.ts";
import type { NoticeBus } from "../kit/notices.ts";
import { MEMORY_SETTING_OF, type MemoryLimits } from "./settings.ts";
import type { GraphCopies, GraphEffects } from "./store_snapshot.ts";
import {
  type Entity,
  entityKey,
  type EntityRecord,
  graphKey,
  type GraphRecord,
  type Relation,
  relationInKey,
  relationKey,
  relationOfInKey,
  relationOfKey,
  relationsInPrefix,
  relationsPrefix,
} from "./store_keys.ts";
import {
  checkEntities,
  checkEntitySize,
  checkItems,
  checkName,
  checkObservation,
  checkRelations,
  unique,
} from "./validate.ts";

/** What the memory store needs. */
export interface MemoryCtx {
  kv: Deno.Kv;
  limits: MemoryLimits;
  notices?: NoticeBus;
  /** This process's graph copies, told of each write that lands (see `store_snapshot.ts`). */
  copies?: GraphCopies;
}

/** The notice topic of a graph: any change to it (graph names hold no `/`). */
export function graphTopic(graph: string): string {
  return `memory/graph/${graph}`;
}

/** KV's most mutations in one atomic, less room for the graph record and the notice. */
const MUTATIONS_MAX = 990;

/** The graph record as read for a write: its entry (for the check) and its counts. */
interface GraphRead {
  entry: Deno.KvEntryMaybe<GraphRecord>;
  record: GraphRecord;
}

async function readGraph(ctx: MemoryCtx, graph: string): Promise<GraphRead> {
  const entry = await readKey<GraphRecord>(ctx.kv, graphKey(graph));
  const now = nowIso();
  const record = (entry.value as GraphRecord | null) ??
    { entities: 0, relations: 0, created_at: now, updated_at: now };
  return { entry, record };
}

/**
 * Commits `build`'s changes to `graph` with the graph record checked and rewritten (counts moved
 * by `delta`), and tells listeners once it lands. `build` returns undefined when nothing changes.
 */
function writeGraph<T>(
  ctx: MemoryCtx,
  graph: string,
  attempt: (g: GraphRead) => Promise<
    {
      value: T;
      delta?: { entities: number; relations: number };
      steps?: Step[];
      effects?: GraphEffects;
    }
  >,
): Promise<T> {
  const key = graphKey(graph);
  return commitWithRetry(async () => {
    const g = await readGraph(ctx, graph);
    const { value, delta, steps, effects } = await attempt(g);
    if (steps === undefined || steps.length === 0) return { value };
    if (steps.length > MUTATIONS_MAX) {
      throw new AppError(
        "too_large",
        `This call would change ${steps.length} stored keys; one atomic change holds at most ${MUTATIONS_MAX}: send fewer items per call (or delete an entity's relations with delete_relations first)`,
      );
    }
    const op = atomic(ctx.kv).check({ key, versionstamp: g.entry.versionstamp });
    for (const step of steps) step(op);
    op.set(key, {
      ...g.record,
      entities: g.record.entities + (delta?.entities ?? 0),
      relations: g.record.relations + (delta?.relations ?? 0),
      updated_at: nowIso(),
    });
    const topic = graphTopic(graph);
    bumpNotices(op, [topic]);
    const from = g.entry.versionstamp;
    return {
      op,
      value,
      committed: (vs) => ctx.copies?.applied(graph, from, vs, effects ?? {}),
      tell: { bus: ctx.notices, topics: [topic] },
    };
  });
}

type Step = (op: Deno.AtomicOperation) => void;

/** `create_entities`: the entities whose names were new, as stored. */
export function createEntities(
  ctx: MemoryCtx,
  graph: string,
  input: readonly Entity[],
  caller: Caller,
): Promise<Entity[]> {
  const entities = checkEntities(input, ctx.limits);
  return writeGraph(ctx, graph, async ({ record }) => {
    const found = await getAll(ctx.kv, entities.map((e) => entityKey(graph, e.name)));
    const fresh = entities.filter((_, i) => found[i].versionstamp === null);
    if (record.entities + fresh.length > ctx.limits.entitiesMax) {
      throw new AppError(
        "full",
        `This graph holds ${record.entities} entities; ${fresh.length} more would pass the limit of ${ctx.limits.entitiesMax} (${MEMORY_SETTING_OF.entitiesMax})`,
      );
    }
    const now = nowIso();
    const steps = fresh.map((e): Step => (op) =>
      op.set(
        entityKey(graph, e.name),
        {
          entityType: e.entityType,
          observations: e.observations,
          created_at: now,
          updated_at: now,
          created_by: caller.name,
        } satisfies EntityRecord,
      )
    );
    return {
      value: fresh,
      delta: { entities: fresh.length, relations: 0 },
      steps,
      effects: { entitiesSet: fresh },
    };
  });
}

/** `create_relations`: the relations that were new. Endpoints need not exist (as upstream). */
export function createRelations(
  ctx: MemoryCtx,
  graph: string,
  input: readonly Relation[],
  caller: Caller,
): Promise<Relation[]> {
  const relations = checkRelations(input, ctx.limits);
  return writeGraph(ctx, graph, async ({ record }) => {
    const found = await getAll(ctx.kv, relations.map((r) => relationKey(graph, r)));
    const fresh = relations.filter((_, i) => found[i].versionstamp === null);
    if (record.relations + fresh.length > ctx.limits.relationsMax) {
      throw new AppError(
        "full",
        `This graph holds ${record.relations} relations; ${fresh.length} more would pass the limit of ${ctx.limits.relationsMax} (${MEMORY_SETTING_OF.relationsMax})`,
      );
    }
    const now = nowIso();
    const steps = fresh.flatMap((r): Step[] => [
      (op) => op.set(relationKey(graph, r), { created_at: now, created_by: caller.name }),
      (op) => op.set(relationInKey(graph, r), true),
    ]);
    return {
      value: fresh,
      delta: { entities: 0, relations: fresh.length },
      steps,
      effects: { relationsAdded: fresh },
    };
  });
}

/** One entry of `add_observations`. */
export interface ObservationInput {
  entityName: string;
  contents: string[];
}

/** One entry of `add_observations`' result. */
export interface ObservationsAdded {
  entityName: string;
  addedObservations: string[];
}

/**
 * `add_observations`: every entry's new contents, in order. A missing entity fails the whole
 * call and saves nothing (as upstream, with upstream's message).
 */
export function addObservations(
  ctx: MemoryCtx,
  graph: string,
  input: readonly ObservationInput[],
): Promise<ObservationsAdded[]> {
  checkItems(input, "observations", ctx.limits);
  input.forEach((o, i) => {
    checkName(o.entityName, `observations[${i}].entityName`, ctx.limits);
    checkItems(o.contents, `observations[${i}].contents`, ctx.limits);
    o.contents.forEach((c, j) =>
      checkObservation(c, `observations[${i}].contents[${j}]`, ctx.limits)
    );
  });
  return writeGraph(ctx, graph, async () => {
    const names = unique(input.map((o) => o.entityName));
    const read = await getAll<EntityRecord>(ctx.kv, names.map((n) => entityKey(graph, n)));
    const current = new Map<string, EntityRecord>();
    read.forEach((entry, i) => {
      if (entry.value !== null) current.set(names[i], entry.value as EntityRecord);
    });
    const changed = new Set<string>();
    const value = input.map((o) => {
      const entity = current.get(o.entityName);
      if (entity === undefined) {
        throw new AppError("not_found", `Entity with name ${o.entityName} not found`);
      }
      const added = unique(o.contents).filter((c) => !entity.observations.includes(c));
      if (added.length > 0) {
        const next = { ...entity, observations: [...entity.observations, ...added] };
        checkEntitySize({ name: o.entityName, ...next }, ctx.limits);
        current.set(o.entityName, next);
        changed.add(o.entityName);
      }
      return { entityName: o.entityName, addedObservations: added };
    });
    const now = nowIso();
    const steps = [...changed].map((name): Step => (op) =>
      op.set(entityKey(graph, name), { ...current.get(name)!, updated_at: now })
    );
    return { value, steps, effects: { entitiesSet: entitiesOf(current, changed) } };
  });
}

/** `delete_entities`: deletes the named entities and every relation from or to those names. */
export function deleteEntities(
  ctx: MemoryCtx,
  graph: string,
  input: readonly string[],
): Promise<void> {
  checkItems(input, "entityNames", ctx.limits);
  input.forEach((n, i) => checkName(n, `entityNames[${i}]`, ctx.limits));
  const names = unique(input);
  return writeGraph(ctx, graph, async () => {
    const found = await getAll(ctx.kv, names.map((n) => entityKey(graph, n)));
    const gone = names.filter((_, i) => found[i].versionstamp !== null);
    // Relations touching a name go even when no entity has that name (as upstream).
    const touching = new Map<string, Relation>();
    const lists = await Promise.all(names.flatMap((n) => [
      listAll(ctx.kv, { prefix: relationsPrefix(graph, n) }),
      listAll(ctx.kv, { prefix: relationsInPrefix(graph, n) }),
    ]));
    lists.forEach((entries, i) => {
      for (const e of entries) {
        const r = i % 2 === 0 ? relationOfKey(e.key) : relationOfInKey(e.key);
        touching.set(JSON.stringify([r.from, r.to, r.relationType]), r);
      }
    });
    const steps: Step[] = gone.map((n) => (op) => op.delete(entityKey(graph, n)));
    for (const r of touching.values()) steps.push(...deleteRelationSteps(graph, r));
    return {
      value: undefined,
      delta: { entities: -gone.length, relations: -touching.size },
      steps,
      effects: { entitiesDeleted: gone, relationsDeleted: [...touching.values()] },
    };
  });
}

/** The entities named in `changed`, from `current`, in the official shape. */
function entitiesOf(current: Map<string, EntityRecord>, changed: Set<string>): Entity[] {
  return [...changed].map((name) => {
    const r = current.get(name)!;
    return { name, entityType: r.entityType, observations: [...r.observations] };
  });
}

function deleteRelationSteps(graph: string, r: Relation): Step[] {
  return [(op) => op.delete(relationKey(graph, r)), (op) => op.delete(relationInKey(graph, r))];
}

/** One entry of `delete_observations`. */
export interface ObservationDeletion {
  entityName: string;
  observations: string[];
}

/** `delete_observations`: removes the named observations; missing entities are ignored. */
export function deleteObservations(
  ctx: MemoryCtx,
  graph: string,
  input: readonly ObservationDeletion[],
): Promise<void> {
  checkItems(input, "deletions", ctx.limits);
  input.forEach((d, i) => {
    checkName(d.entityName, `deletions[${i}].entityName`, ctx.limits);
    checkItems(d.observations, `deletions[${i}].observations`, ctx.limits);
    d.observations.forEach((o, j) =>
      checkObservation(o, `deletions[${i}].observations[${j}]`, ctx.limits)
    );
  });
  return writeGraph(ctx, graph, async () => {
    const names = unique(input.map((d) => d.entityName));
    const read = await getAll<EntityRecord>(ctx.kv, names.map((n) => entityKey(graph, n)));
    const current = new Map<string, EntityRecord>();
    read.forEach((entry, i) => {
      if (entry.value !== null) current.set(names[i], entry.value as EntityRecord);
    });
    const changed = new Set<string>();
    for (const d of input) {
      const entity = current.get(d.entityName);
      if (entity === undefined) continue;
      const kept = entity.observations.filter((o) => !d.observations.includes(o));
      if (kept.length === entity.observations.length) continue;
      current.set(d.entityName, { ...entity, observations: kept });
      changed.add(d.entityName);
    }
    const now = nowIso();
    const steps = [...changed].map((name): Step => (op) =>
      op.set(entityKey(graph, name), { ...current.get(name)!, updated_at: now })
    );
    return { value: undefined, steps, effects: { entitiesSet: entitiesOf(current, changed) } };
  });
}

/** `delete_relations`: removes the relations given; missing ones are ignored. */
export function deleteRelations(
  ctx: MemoryCtx,
  graph: string,
  input: readonly Relation[],
): Promise<void> {
  const relations = checkRelations(input, ctx.limits);
  return writeGraph(ctx, graph, async () => {
    const found = await getAll(ctx.kv, relations.map((r) => relationKey(graph, r)));
    const gone = relations.filter((_, i) => found[i].versionstamp !== null);
    return {
      value: undefined,
      delta: { entities: 0, relations: -gone.length },
      steps: gone.flatMap((r) => deleteRelationSteps(graph, r)),
      effects: { relationsDeleted: gone },
    };
  });
}
