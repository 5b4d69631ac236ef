/**
 * What an export taken while clients write cannot repair on import: a handoff saved again while
 * the export ran. The export reads the `handoff` record, then (further on in key order) the
 * `handoff_chunk` keys; a save in between replaces the chunks the exported record lists, so the
 * file would hold a record without its conversation. `ChunkCheck` sees every exported entry and
 * names the handoffs whose chunks were not reached and whose record has changed since: the export
 * is then taken again (cli.ts). A record missing chunks that has not changed is exported as it is.
 */

import { type Handoff, handoffKey } from "../handoff/store_schema.ts";
import { readKeys } from "../kit/kv.ts";

/** An export that raced a write it cannot be made consistent with; taking it again fixes it. */
export class ExportRaced extends Error {
  constructor(readonly handoffs: string[]) {
    super(
      `handoff${handoffs.length > 1 ? "s" : ""} ${
        handoffs.map((k) => `"${k}"`).join(", ")
      } changed while the export read ${
        handoffs.length > 1 ? "them" : "it"
      }: its conversation is not in the file. Run the export again, or stop the server for an ` +
        "exact copy",
    );
    this.name = "ExportRaced";
  }
}

/** Follows the exported handoff records and chunks (see the module note). */
export class ChunkCheck {
  #open = new Map<string, { versionstamp: string; chunks: Set<string> }>();

  /** Notes one exported entry. */
  see(entry: Deno.KvEntry<unknown>): void {
    const [family, key, chunk] = entry.key;
    if (family === "handoff" && entry.key.length === 2 && typeof key === "string") {
      const chunks = (entry.value as Partial<Handoff> | null)?.chunks;
      if (!Array.isArray(chunks) || chunks.length === 0) return;
      this.#open.set(key, {
        versionstamp: entry.versionstamp,
        chunks: new Set(chunks.map((c) => String(c?.id))),
      });
    } else if (family === "handoff_chunk" && typeof key === "string") {
      const open = this.#open.get(key);
      open?.chunks.delete(String(chunk));
      if (open?.chunks.size === 0) this.#open.delete(key);
    }
  }

  /** Throws `ExportRaced` naming the handoffs whose chunks were missed because they changed. */
  async verify(kv: Deno.Kv): Promise<void> {
    const missed = [...this.#open];
    const changed: string[] = [];
    for (let i = 0; i < missed.length; i += 10) {
      const batch = missed.slice(i, i + 10);
      const now = await readKeys<unknown[]>(kv, batch.map(([key]) => handoffKey(key)));
      batch.forEach(([key, seen], j) => {
        if (now[j].versionstamp !== seen.versionstamp) changed.push(key);
      });
    }
    if (changed.length > 0) throw new ExportRaced(changed);
  }
}
