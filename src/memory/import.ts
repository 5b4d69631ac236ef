/**
 * Bringing an official memory file into a graph (`deno task import-memory`): the whole file is
 * read and checked first (a malformed line refuses the import by its line number, before anything
 * is written), then written through the same store functions the tools use, in calls of at most
 * `MEMORY_ITEMS_MAX` items: an entity that exists gains the observations it lacks, a relation that
 * exists is skipped. A second import of the same file therefore writes nothing, and an import cut
 * short is completed by running it again.
 */

import type { Caller } from "../kit/caller.ts";
import { AppError } from "../kit/errors.ts";
import { getAll, readKey } from "../kit/reads.ts";
import { MEMORY_SETTING_OF } from "./settings.ts";
import {
  type Entity,
  entityKey,
  type EntityRecord,
  graphKey,
  type GraphRecord,
  type Relation,
  relationKey,
} from "./store_keys.ts";
import { utf8Bytes } from "../kit/text.ts";
import { checkEntities, checkEntitySize, checkRelations, entityBytes } from "./validate.ts";
import { addObservations, createEntities, createRelations, type MemoryCtx } from "./store_write.ts";

/** What an import did. */
export interface MemoryImportReport {
  entitiesAdded: number;
  observationsAdded: number;
  relationsAdded: number;
  /** Entities, observations and relations already in the graph. */
  skipped: number;
}

/** Largest memory file read, in bytes. */
export const MEMORY_FILE_MAX_BYTES = 256 * 1024 * 1024;

function lineError(line: number, message: string): AppError {
  return new AppError("invalid", `line ${line}: ${message}; nothing was imported`);
}

function strings(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === "string");
}

/**
 * The entities and relations of an official memory file: JSON lines of `{type: "entity", name,
 * entityType, observations}` and `{type: "relation", from, to, relationType}` (memory.jsonl and
 * the older memory.json), or one `{entities, relations}` object (what read_graph returns).
 */
export function parseMemoryFile(text: string): { entities: Entity[]; relations: Relation[] } {
  // A whole graph parses as one object with both arrays; JSON lines fail that at the first line.
  const whole = tryWhole(text.trim());
  if (whole) return whole;
  const entities: Entity[] = [];
  const relations: Relation[] = [];
  text.split("\n").forEach((raw, i) => {
    const line = raw.trim();
    if (line === "") return;
    let item: Record<string, unknown>;
    try {
      item = JSON.parse(line);
    } catch {
      throw lineError(i + 1, "not JSON");
    }
    if (typeof item !== "object" || item === null || Array.isArray(item)) {
      throw lineError(i + 1, "not a JSON object");
    }
    if (item.type === "entity") {
      if (
        typeof item.name !== "string" || typeof item.entityType !== "string" ||
        !strings(item.observations)
      ) {
        throw lineError(
          i + 1,
          "an entity needs name, entityType (strings) and observations (strings)",
        );
      }
      entities.push({
        name: item.name,
        entityType: item.entityType,
        observations: item.observations,
      });
    } else if (item.type === "relation") {
      if (
        typeof item.from !== "string" || typeof item.to !== "string" ||
        typeof item.relationType !== "string"
      ) throw lineError(i + 1, "a relation needs from, to and relationType (strings)");
      relations.push({ from: item.from, to: item.to, relationType: item.relationType });
    } else {
      throw lineError(
        i + 1,
        `type must be "entity" or "relation", got ${JSON.stringify(item.type)}`,
      );
    }
  });
  return { entities, relations };
}

function tryWhole(text: string): { entities: Entity[]; relations: Relation[] } | undefined {
  let value: { entities?: unknown; relations?: unknown };
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!Array.isArray(value?.entities) || !Array.isArray(value?.relations)) return undefined;
  const entities = value.entities as Entity[];
  const relations = value.relations as Relation[];
  entities.forEach((e, i) => {
    if (
      typeof e?.name !== "string" || typeof e.entityType !== "string" || !strings(e.observations)
    ) {
      throw new AppError(
        "invalid",
        `entities[${i}] needs name, entityType and observations; nothing was imported`,
      );
    }
  });
  relations.forEach((r, i) => {
    if (
      typeof r?.from !== "string" || typeof r.to !== "string" || typeof r.relationType !== "string"
    ) {
      throw new AppError(
        "invalid",
        `relations[${i}] needs from, to and relationType; nothing was imported`,
      );
    }
  });
  return { entities, relations };
}

/** Imports `file`'s graph into `graph`; every item is checked before the first write. */
export async function importMemory(
  ctx: MemoryCtx,
  graph: string,
  parsed: { entities: Entity[]; relations: Relation[] },
  caller: Caller,
  progress: (message: string) => void = () => {},
): Promise<MemoryImportReport> {
  // Checked whole first, so a bad item refuses the import before anything is written. Names
  // repeated in the file are merged: their observations are added to the first.
  const merged = new Map<string, Entity>();
  for (const e of parsed.entities) {
    const seen = merged.get(e.name);
    if (seen) seen.observations.push(...e.observations);
    else merged.set(e.name, { ...e, observations: [...e.observations] });
  }
  const unlimited = { ...ctx.limits, itemsMax: Number.MAX_SAFE_INTEGER };
  const entities = checkEntities([...merged.values()], unlimited);
  const relations = checkRelations(parsed.relations, unlimited);
  await checkRoom(ctx, graph, entities, relations);
  const report: MemoryImportReport = {
    entitiesAdded: 0,
    observationsAdded: 0,
    relationsAdded: 0,
    skipped: 0,
  };
  const step = ctx.limits.itemsMax;
  let done = 0;
  for (const batch of calls(entities, step, ENTITY_CALL_BYTES, (e) => entityBytes(e) + 256)) {
    const created = await createEntities(ctx, graph, batch, caller);
    report.entitiesAdded += created.length;
    const made = new Set(created.map((e) => e.name));
    // The ones that were there already gain only the observations they lack.
    const existing = batch.filter((e) => !made.has(e.name));
    report.skipped += existing.length;
    const additions = existing.filter((e) => e.observations.length > 0)
      .map((e) => ({ entityName: e.name, contents: e.observations }));
    if (additions.length > 0) {
      const added = await addObservations(ctx, graph, additions);
      added.forEach((a, j) => {
        report.observationsAdded += a.addedObservations.length;
        report.skipped += additions[j].contents.length - a.addedObservations.length;
      });
    }
    done += batch.length;
    progress(`entities: ${done} of ${entities.length}`);
  }
  done = 0;
  const relationBytes = (r: Relation) =>
    2 * (utf8Bytes(r.from) + utf8Bytes(r.to) + utf8Bytes(r.relationType) + graph.length + 64);
  for (const batch of calls(relations, step, RELATION_CALL_KEY_BYTES, relationBytes)) {
    const created = await createRelations(ctx, graph, batch, caller);
    report.relationsAdded += created.length;
    report.skipped += batch.length - created.length;
    done += batch.length;
    progress(`relations: ${done} of ${relations.length}`);
  }
  return report;
}

/** Bytes of entities one import call writes, under KV's 800 KiB per atomic. */
const ENTITY_CALL_BYTES = 512 * 1024;
/** Key bytes of relations one import call writes (two keys each), under KV's 80 KiB per atomic. */
const RELATION_CALL_KEY_BYTES = 60 * 1024;

/**
 * `items` in calls of at most `count` items and `max` bytes (by `size`): a file's items are each
 * within their limits, but a call of many large ones would pass KV's limits on one atomic.
 */
function* calls<T>(items: T[], count: number, max: number, size: (item: T) => number) {
  let batch: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const b = size(item);
    if (batch.length > 0 && (batch.length === count || bytes + b > max)) {
      yield batch;
      batch = [];
      bytes = 0;
    }
    batch.push(item);
    bytes += b;
  }
  if (batch.length > 0) yield batch;
}

/**
 * Refuses, before the first write, a file the graph's limits cannot hold: its new entities and
 * relations beside the graph's, and each existing entity with the observations it would gain.
 * Each call checks its own part again; without this, the calls before the one that passes a
 * limit would be written and the import left half done. (A writer adding meanwhile can still
 * make a later call refuse; running the import again completes it.)
 */
async function checkRoom(
  ctx: MemoryCtx,
  graph: string,
  entities: Entity[],
  relations: Relation[],
): Promise<void> {
  const refuse = (message: string) => new AppError("full", `${message}; nothing was imported`);
  const entry = await readKey(ctx.kv, graphKey(graph));
  const record = (entry.value as GraphRecord | null) ?? { entities: 0, relations: 0 };
  const found = await getAll(ctx.kv, entities.map((e) => entityKey(graph, e.name)));
  let fresh = 0;
  entities.forEach((e, i) => {
    if (found[i].value === null) return void fresh++;
    const stored = (found[i].value as EntityRecord).observations;
    const gained = e.observations.filter((o) => !stored.includes(o));
    try {
      checkEntitySize({ ...e, observations: [...stored, ...gained] }, ctx.limits);
    } catch (error) {
      throw error instanceof AppError ? refuse(error.message) : error;
    }
  });
  const { entitiesMax, relationsMax } = ctx.limits;
  if (record.entities + fresh > entitiesMax) {
    throw refuse(
      `the file has ${fresh} new entities; with the ${record.entities} this graph holds they pass the limit of ${entitiesMax} (${MEMORY_SETTING_OF.entitiesMax})`,
    );
  }
  const there = await getAll(ctx.kv, relations.map((r) => relationKey(graph, r)));
  const newRelations = there.filter((r) => r.versionstamp === null).length;
  if (record.relations + newRelations > relationsMax) {
    throw refuse(
      `the file has ${newRelations} new relations; with the ${record.relations} this graph holds they pass the limit of ${relationsMax} (${MEMORY_SETTING_OF.relationsMax})`,
    );
  }
}
