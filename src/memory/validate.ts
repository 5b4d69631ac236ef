/**
 * The memory tools' input checks: every name, type and observation is well-formed Unicode within
 * its byte limit, and a call holds at most `MEMORY_ITEMS_MAX` items. Each error names the field,
 * the limit and its setting; a refused call changes nothing.
 */

import { AppError } from "../kit/errors.ts";
import { utf8Bytes } from "../kit/text.ts";
import { MEMORY_SETTING_OF, type MemoryLimits } from "./settings.ts";
import type { Entity, Relation } from "./store_keys.ts";

/** Throws unless `items` holds at most `MEMORY_ITEMS_MAX` entries. */
export function checkItems(items: readonly unknown[], what: string, limits: MemoryLimits): void {
  if (items.length > limits.itemsMax) {
    throw new AppError(
      "too_large",
      `${what} holds ${items.length} items; at most ${limits.itemsMax} are allowed in one call (${MEMORY_SETTING_OF.itemsMax}): split it into several calls`,
    );
  }
}

/** Throws unless `value` is well-formed and at most `max` UTF-8 bytes; `setting` names the limit. */
function checkPiece(value: string, what: string, max: number, setting: string): void {
  if (!value.isWellFormed()) {
    throw new AppError(
      "invalid",
      `${what} holds a lone UTF-16 surrogate: send well-formed Unicode text`,
    );
  }
  const bytes = utf8Bytes(value);
  if (bytes > max) {
    throw new AppError(
      "too_large",
      `${what} is ${bytes} UTF-8 bytes; at most ${max} are allowed (${setting})`,
    );
  }
}

/**
 * Checks a name, entity type or relation type. Names are KV key parts, where each NUL takes two
 * bytes: they are measured so, or three NUL-filled names would pass and overflow a relation's key.
 */
export function checkName(value: string, what: string, limits: MemoryLimits): void {
  const max = limits.nameMaxBytes;
  checkPiece(value, what, max, MEMORY_SETTING_OF.nameMaxBytes);
  const nuls = value.split("\0").length - 1;
  const bytes = utf8Bytes(value) + nuls;
  if (nuls > 0 && bytes > max) {
    throw new AppError(
      "too_large",
      `${what} is ${bytes} bytes as stored (UTF-8, each NUL counted twice as KV keys store it); at most ${max} are allowed (${MEMORY_SETTING_OF.nameMaxBytes})`,
    );
  }
}

/** Checks one observation. */
export function checkObservation(value: string, what: string, limits: MemoryLimits): void {
  checkPiece(value, what, limits.observationMaxBytes, MEMORY_SETTING_OF.observationMaxBytes);
}

/** `values` without repeats, first kept, in order. */
export function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}

/**
 * The entities of a `create_entities` call, checked, each name once (the first kept) and each
 * entity's observations without repeats.
 */
export function checkEntities(entities: readonly Entity[], limits: MemoryLimits): Entity[] {
  checkItems(entities, "entities", limits);
  const seen = new Set<string>();
  const out: Entity[] = [];
  entities.forEach((e, i) => {
    checkName(e.name, `entities[${i}].name`, limits);
    checkName(e.entityType, `entities[${i}].entityType`, limits);
    e.observations.forEach((o, j) =>
      checkObservation(o, `entities[${i}].observations[${j}]`, limits)
    );
    if (seen.has(e.name)) return;
    seen.add(e.name);
    const entity = { name: e.name, entityType: e.entityType, observations: unique(e.observations) };
    checkEntitySize(entity, limits);
    out.push(entity);
  });
  return out;
}

/** Throws when `entity` passes `MEMORY_OBSERVATIONS_MAX` or `MEMORY_ENTITY_MAX_BYTES`. */
export function checkEntitySize(entity: Entity, limits: MemoryLimits): void {
  if (entity.observations.length > limits.observationsMax) {
    throw new AppError(
      "full",
      `Entity ${
        JSON.stringify(entity.name)
      } would hold ${entity.observations.length} observations; at most ${limits.observationsMax} are allowed (${MEMORY_SETTING_OF.observationsMax})`,
    );
  }
  const bytes = entityBytes(entity);
  if (bytes > limits.entityMaxBytes) {
    throw new AppError(
      "full",
      `Entity ${
        JSON.stringify(entity.name)
      } would be ${bytes} UTF-8 bytes (name, type and observations); at most ${limits.entityMaxBytes} are allowed (${MEMORY_SETTING_OF.entityMaxBytes})`,
    );
  }
}

/** UTF-8 bytes of an entity's name, type and observations. */
export function entityBytes(entity: Entity): number {
  let n = utf8Bytes(entity.name) + utf8Bytes(entity.entityType);
  for (const o of entity.observations) n += utf8Bytes(o);
  return n;
}

/** The relations of a call, checked, each once (the first kept). */
export function checkRelations(relations: readonly Relation[], limits: MemoryLimits): Relation[] {
  checkItems(relations, "relations", limits);
  const seen = new Set<string>();
  const out: Relation[] = [];
  relations.forEach((r, i) => {
    checkName(r.from, `relations[${i}].from`, limits);
    checkName(r.to, `relations[${i}].to`, limits);
    checkName(r.relationType, `relations[${i}].relationType`, limits);
    const id = JSON.stringify([r.from, r.to, r.relationType]);
    if (seen.has(id)) return;
    seen.add(id);
    out.push({ from: r.from, to: r.to, relationType: r.relationType });
  });
  return out;
}
