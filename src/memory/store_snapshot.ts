/**
 * A process's copies of whole graphs for `search_nodes`, which must look at every entity: kept by
 * the versionstamp of the graph's record. Every write to a graph rewrites that record in its own
 * atomic (`store_write.ts`), so a copy whose versionstamp still matches the record is exactly the
 * graph as stored, whichever process wrote last; a copy is only taken when the record's
 * versionstamp is the same before and after the lists (no write landed in between). Copies are
 * bounded by `MEMORY_CACHE_BYTES` (0 turns them off, as the bench's switch does); the least
 * recently used goes first. The bench's `memory` group shows what it buys.
 */

import { listAll, readKey } from "../kit/kv.ts";
import { utf8Bytes } from "../kit/text.ts";
import {
  asEntity,
  entitiesPrefix,
  type Entity,
  graphKey,
  type Relation,
  relationOfKey,
  relationsPrefix,
} from "./store_keys.ts";

/** A whole graph, with its entities' searchable fields in lower case. */
export interface GraphCopy {
  entities: Entity[];
  /** Per entity: name, type and observations, lower-cased (the official matching ignores case). */
  lower: string[][];
  relations: Relation[];
}

interface Held {
  versionstamp: string;
  copy: GraphCopy;
  bytes: number;
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
    if (
      held !== undefined && before.versionstamp !== null &&
      held.versionstamp === before.versionstamp
    ) {
      this.#held.delete(graph);
      this.#held.set(graph, held); // most recently used last
      return held.copy;
    }
    const [entries, relationEntries] = await Promise.all([
      listAll(kv, { prefix: entitiesPrefix(graph) }, { batchSize: 1000 }),
      listAll(kv, { prefix: relationsPrefix(graph) }, { batchSize: 1000 }),
    ]);
    let bytes = 0;
    const entities = entries.map((e) => {
      const name = e.key[e.key.length - 1] as string;
      const record = asEntity(e.key, e.value);
      for (const o of record.observations) bytes += utf8Bytes(o);
      bytes += utf8Bytes(name) + utf8Bytes(record.entityType);
      return { name, entityType: record.entityType, observations: [...record.observations] };
    });
    const relations = relationEntries.map((e) => relationOfKey(e.key));
    const copy: GraphCopy = {
      entities,
      lower: entities.map((e) =>
        [e.name, e.entityType, ...e.observations].map((s) => s.toLowerCase())
      ),
      relations,
    };
    bytes = bytes * 2 + relations.length * 64;
    if (held !== undefined) this.#drop(graph);
    if (this.#maxBytes > 0 && bytes <= this.#maxBytes && before.versionstamp !== null) {
      const after = await readKey(kv, graphKey(graph));
      if (after.versionstamp === before.versionstamp) {
        this.#keep(graph, { versionstamp: before.versionstamp, copy, bytes });
      }
    }
    return copy;
  }

  #keep(graph: string, held: Held): void {
    this.#held.set(graph, held);
    this.#bytes += held.bytes;
    for (const [name] of this.#held) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#drop(name);
    }
  }

  #drop(graph: string): void {
    const held = this.#held.get(graph);
    if (held === undefined) return;
    this.#held.delete(graph);
    this.#bytes -= held.bytes;
  }
}
