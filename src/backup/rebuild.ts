/**
 * `rebuildDerived(kv)`: every field and key the server derives from its records (counters, sums,
 * indexes, a discussion's `latest_seq`) recomputed from the records KV holds, and written where it
 * differs. Import runs it before it marks itself done, so an export taken while clients wrote
 * (whose derived keys may lag or lead the records they count) restores into a working database.
 * Each toolset's derived data is one `Rebuilder` in `REBUILDERS`; data added later (a search
 * index under its own prefix) is one more entry there.
 */

import { atomic, commitOnce } from "../kit/commit.ts";
import { roughSize } from "../kit/kv_limits.ts";
import { keyText } from "../kit/key_text.ts";
import { listEntries, readKey } from "../kit/reads.ts";
import { encodeEntry } from "./codec.ts";
import { focusRebuilder } from "./rebuild_focus.ts";
import { handoffRebuilder } from "./rebuild_handoff.ts";
import { tableRebuilder } from "./rebuild_table.ts";
import { thinkingRebuilder } from "./rebuild_thinking.ts";
import type { DerivedPlan, Rebuilder } from "./rebuild_types.ts";

export type { DerivedPlan, OwnedPrefix, Rebuilder } from "./rebuild_types.ts";

/** Every rebuilder, run in order. */
export const REBUILDERS: readonly Rebuilder[] = [
  tableRebuilder,
  handoffRebuilder,
  thinkingRebuilder,
  focusRebuilder,
];

/** What a rebuild changed, per rebuilder: keys written and keys deleted. */
export type RebuildReport = Record<string, { written: number; deleted: number }>;

/** Most keys one rebuild atomic writes (each also checked: KV allows 100 checks). */
const REBUILD_BATCH = 100;
/** Most estimated bytes of values in one rebuild atomic (KV allows about 800 KiB). */
const REBUILD_BATCH_BYTES = 256 * 1024;

/**
 * Recomputes every rebuilder's derived data and writes what differs, in atomics that check each
 * key they write against the version read (a write from elsewhere meanwhile fails the rebuild
 * rather than being overwritten: no server may run on the database during an import).
 */
export async function rebuildDerived(
  kv: Deno.Kv,
  rebuilders: readonly Rebuilder[] = REBUILDERS,
): Promise<RebuildReport> {
  const report: RebuildReport = {};
  for (const rebuilder of rebuilders) {
    const changes = await changesOf(kv, await rebuilder.plan(kv));
    await commitChanges(kv, changes, rebuilder.name);
    report[rebuilder.name] = {
      written: changes.filter((c) => c.value !== undefined).length,
      deleted: changes.filter((c) => c.value === undefined).length,
    };
  }
  return report;
}

/** One key to write (`value`) or delete (no `value`), checked at `versionstamp`. */
interface Change {
  key: Deno.KvKey;
  versionstamp: string | null;
  value?: unknown;
}

async function changesOf(kv: Deno.Kv, plan: DerivedPlan): Promise<Change[]> {
  const wanted = new Map(plan.entries.map((e) => [keyText(e.key), e]));
  const changes: Change[] = [];
  for (const owned of plan.owned) {
    for await (const entry of listEntries(kv, { prefix: owned.prefix })) {
      if (owned.keep?.(entry.key)) continue;
      const id = keyText(entry.key);
      const want = wanted.get(id);
      wanted.delete(id);
      if (want === undefined) {
        if (!owned.absent?.(entry.value)) changes.push({ ...entry, value: undefined });
      } else if (!same(entry, want.value)) changes.push({ ...entry, value: want.value });
    }
  }
  // What is left: derived keys missing, and records that may need a correction.
  for (const want of wanted.values()) {
    const entry = await readKey(kv, want.key);
    const absent = entry.value === null &&
      plan.owned.some((o) => isUnder(want.key, o.prefix) && o.absent?.(want.value));
    if (!absent && !same(entry, want.value)) {
      changes.push({ key: want.key, versionstamp: entry.versionstamp, value: want.value });
    }
  }
  return changes;
}

async function commitChanges(kv: Deno.Kv, changes: Change[], name: string): Promise<void> {
  for (const batch of batches(changes)) {
    const op = atomic(kv);
    for (const change of batch) {
      op.check(change);
      if (change.value === undefined) op.delete(change.key);
      else op.set(change.key, change.value);
    }
    const result = await commitOnce(op);
    if (!result.ok) {
      throw new Error(
        `rebuilding the ${name} counters and indexes: a key changed while they were rebuilt ` +
          "(a server or another import is writing to this database); stop it and run the " +
          "import again",
      );
    }
  }
}

/** `changes` in groups one atomic can take: at most `REBUILD_BATCH` keys and ~256 KiB. */
function* batches(changes: Change[]): Generator<Change[]> {
  let batch: Change[] = [];
  let bytes = 0;
  for (const change of changes) {
    const size = roughSize(change.value, REBUILD_BATCH_BYTES);
    if (
      batch.length === REBUILD_BATCH || (batch.length > 0 && bytes + size > REBUILD_BATCH_BYTES)
    ) {
      yield batch;
      batch = [];
      bytes = 0;
    }
    batch.push(change);
    bytes += size;
  }
  if (batch.length > 0) yield batch;
}

function same(entry: Deno.KvEntryMaybe<unknown>, value: unknown): boolean {
  return entry.value !== null && encodeEntry([], entry.value) === encodeEntry([], value);
}

function isUnder(key: Deno.KvKey, prefix: Deno.KvKey): boolean {
  return prefix.every((part, i) => keyText([part]) === keyText([key[i]]));
}
