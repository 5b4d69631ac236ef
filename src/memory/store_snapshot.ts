/**
 * A process's copies of whole graphs for `search_nodes`, which must look at every entity: kept by
 * the versionstamp of the graph's record. Every write to a graph rewrites that record in its own
 * atomic (`store_write.ts`), so a copy whose versionstamp still matches the record is exactly the
 * graph as stored, whichever process wrote last:
 * - a copy is only taken when the record's versionstamp is the same before and after the lists
 *   (no write landed in between);
 * - a write of this process whose atomic checked the version a copy holds applies its own
 *   changes to that copy and moves it to the commit's versionstamp (nothing else can have landed
 *   in between: that commit's check would have failed);
 * - a write of another process leaves the copy behind, and the next search reads the graph again.
 * Copies are bounded by `MEMORY_CACHE_BYTES` (0 turns them off, as the bench's switch does); the
 * least recently used goes first. The bench's `memory` group shows what they buy.
 */

import { listAll, readKey } from "../kit/reads.ts";
import { utf8Bytes } from "../kit/text.ts";
import {
  entitiesPrefix,
  type Entity,
  type EntityRecord,
  graphKey,
  type Relation,
  relationOfKey,
  relationsPrefix,
} from "./store_keys.ts";

/** One entity of a copy, with its searchable fields lower-cased (upstream matching ignores case). */
export interface CopiedEntity {
  entity: Entity;
  /** Name, type, then observations, lower-cased. */
  lower: string[];
}

/** A whole graph. */
export interface GraphCopy {
  entities: Map<string, CopiedEntity>;
  /** By `relationId`. */
  relations: Map<string, Relation>;
}

/** What one committed write changed in a graph, for the copy this process holds. */
export interface GraphEffects {
  entitiesSet?: Entity[];
  entitiesDeleted?: string[];
  relationsAdded?: Relation[];
  relationsDeleted?: Relation[];
}

/** A relation's identity in a copy. */
export function relationId(r: Relation): string {
  return JSON.stringify([r.from, r.to, r.relationType]);
}

interface Held {
  versionstamp: string;
  copy: GraphCopy;
  bytes: number;
}

function copied(entity: Entity): CopiedEntity {
  return {
    entity,
    lower: [entity.name, entity.entityType, ...entity.observations].map((s) => s.toLowerCase()),
  };
}

function sizeOf(e: Entity): number {
  let n = utf8Bytes(e.name) + utf8Bytes(e.entityType);
  for (const o of e.observations) n += utf8Bytes(o);
  return 2 * n; // the text and its lower-case copy
}

/** Copies of graphs held by one process, at most `maxBytes` of their text. */
export class GraphCopies {
  readonly #held = new Map<string, Held>();
  readonly #maxBytes: number;
  #bytes = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /** `graph` as stored now: the held copy when the graph has not changed, else read afresh. */
  async read(kv: Deno.Kv, graph: string): Promise<GraphCopy> {
    const before = await readKey(kv, graphKey(graph));
    const held = this.#held.get(graph);
    if (held !== undefined && held.versionstamp === before.versionstamp) {
      this.#held.delete(graph);
      this.#held.set(graph, held); // most recently used last
      return held.copy;
    }
    const [entries, relationEntries] = await Promise.all([
      listAll(kv, { prefix: entitiesPrefix(graph) }, { batchSize: 1000 }),
      listAll(kv, { prefix: relationsPrefix(graph) }, { batchSize: 1000 }),
    ]);
    const copy: GraphCopy = { entities: new Map(), relations: new Map() };
    let bytes = 0;
    for (const e of entries) {
      const name = e.key[e.key.length - 1] as string;
      const record = e.value as EntityRecord;
      const entity = {
        name,
        entityType: record.entityType,
        observations: [...record.observations],
      };
      copy.entities.set(name, copied(entity));
      bytes += sizeOf(entity);
    }
    for (const e of relationEntries) {
      const r = relationOfKey(e.key);
      copy.relations.set(relationId(r), r);
      bytes += 64;
    }
    this.#drop(graph);
    if (this.#maxBytes > 0 && bytes <= this.#maxBytes && before.versionstamp !== null) {
      const after = await readKey(kv, graphKey(graph));
      if (after.versionstamp === before.versionstamp) {
        this.#keep(graph, { versionstamp: before.versionstamp, copy, bytes });
      }
    }
    return copy;
  }

  /**
   * A write of this process that checked the graph at `from` landed at `to` with `effects`: the
   * copy held at `from` takes them and moves to `to`; any other copy of the graph is dropped.
   */
  applied(graph: string, from: string | null, to: string, effects: GraphEffects): void {
    const held = this.#held.get(graph);
    if (held === undefined) return;
    if (held.versionstamp !== from) return this.#drop(graph);
    const { entities, relations } = held.copy;
    for (const name of effects.entitiesDeleted ?? []) {
      const gone = entities.get(name);
      if (gone) held.bytes -= sizeOf(gone.entity);
      entities.delete(name);
    }
    for (const e of effects.entitiesSet ?? []) {
      const before = entities.get(e.name);
      if (before) held.bytes -= sizeOf(before.entity);
      entities.set(e.name, copied(e));
      held.bytes += sizeOf(e);
    }
    for (const r of effects.relationsDeleted ?? []) relations.delete(relationId(r));
    for (const r of effects.relationsAdded ?? []) relations.set(relationId(r), r);
    held.versionstamp = to;
    this.#recount();
  }

  #recount(): void {
    this.#bytes = 0;
    for (const h of this.#held.values()) this.#bytes += h.bytes;
    for (const [name] of this.#held) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#drop(name);
    }
  }

  #keep(graph: string, held: Held): void {
    this.#held.set(graph, held);
    this.#recount();
  }

  #drop(graph: string): void {
    const held = this.#held.get(graph);
    if (held === undefined) return;
    this.#held.delete(graph);
    this.#bytes -= held.bytes;
  }
}
