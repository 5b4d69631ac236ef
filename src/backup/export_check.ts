/**
 * What an export taken while clients write cannot repair on import, found while it is taken so
 * the export can be taken again (cli.ts). The export reads keys in order, so:
 * - a handoff saved again after its `handoff` record was read replaces the `handoff_chunk`s the
 *   exported record lists before the export reaches them: the file would hold a record without
 *   its conversation;
 * - a discussion, sequence or project created after its family was read has its messages,
 *   thoughts or tasks (later in key order) exported without it: they would be shown nowhere.
 * `ExportCheck` sees every exported entry and, at the end, names what changed in one of these
 * ways. What was already so before the export (a record missing chunks that has not changed, an
 * orphan whose parent does not exist now either) is exported as it is.
 */

import { type Handoff, handoffKey } from "../handoff/store_schema.ts";
import { retryLocked } from "../kit/retry.ts";

/** An export that raced writes it cannot be made consistent with; taking it again fixes it. */
export class ExportRaced extends Error {
  constructor(readonly changes: string[]) {
    super(
      `the database changed while the export read it (${changes.join("; ")}): the file would ` +
        "miss part of it. Run the export again, or stop the server for an exact copy",
    );
    this.name = "ExportRaced";
  }
}

/** Child families whose records are shown only through a parent record, read earlier. */
const PARENTS: Record<string, string> = {
  message: "discussion",
  thought: "sequence",
  task: "project",
};

/** Follows the exported entries (see the module note). */
export class ExportCheck {
  #chunks = new Map<string, { versionstamp: string; missing: Set<string> }>();
  #parents = new Set<string>();
  #orphans = new Map<string, [string, string]>();

  /** Notes one exported entry. */
  see(entry: Deno.KvEntry<unknown>): void {
    const [family, id, part] = entry.key;
    if (typeof family !== "string" || typeof id !== "string") return;
    if (Object.values(PARENTS).includes(family) && entry.key.length === 2) {
      this.#parents.add(JSON.stringify([family, id]));
    }
    const parent = PARENTS[family];
    if (parent !== undefined && !this.#parents.has(JSON.stringify([parent, id]))) {
      this.#orphans.set(JSON.stringify([parent, id]), [parent, id]);
    }
    if (family === "handoff" && entry.key.length === 2) {
      const chunks = (entry.value as Partial<Handoff> | null)?.chunks;
      if (!Array.isArray(chunks) || chunks.length === 0) return;
      const missing = new Set(chunks.map((c) => String(c?.id)));
      this.#chunks.set(id, { versionstamp: entry.versionstamp, missing });
    } else if (family === "handoff_chunk") {
      const open = this.#chunks.get(id);
      open?.missing.delete(String(part));
      if (open?.missing.size === 0) this.#chunks.delete(id);
    }
  }

  /** Throws `ExportRaced` naming what changed in a way the file cannot hold. */
  async verify(kv: Deno.Kv): Promise<void> {
    const changes: string[] = [];
    const chunks = [...this.#chunks];
    const records = await readAll(kv, chunks.map(([key]) => handoffKey(key)));
    chunks.forEach(([key, seen], i) => {
      if (records[i].versionstamp !== seen.versionstamp) {
        changes.push(`handoff "${key}" was saved again`);
      }
    });
    const orphans = [...this.#orphans.values()];
    const parents = await readAll(kv, orphans);
    orphans.forEach(([family, id], i) => {
      if (parents[i].versionstamp !== null) changes.push(`${family} ${id} was created`);
    });
    if (changes.length > 0) throw new ExportRaced(changes);
  }
}

/** Reads `keys` as they are (an export never refuses a damaged record: it may be the rescue). */
async function readAll(kv: Deno.Kv, keys: Deno.KvKey[]): Promise<Deno.KvEntryMaybe<unknown>[]> {
  const out: Deno.KvEntryMaybe<unknown>[] = [];
  for (let i = 0; i < keys.length; i += 10) {
    out.push(...await retryLocked(() => kv.getMany<unknown[]>(keys.slice(i, i + 10))));
  }
  return out;
}
