/**
 * The background work of the index: indexing what a database already holds (a resumable scan
 * of every source, which queues pointers the folder loads), and folding pending entries into
 * segments. `reindex` rebuilds the whole index (deno task reindex, and import).
 */

import { atomic, commitOnce } from "../kit/commit.ts";
import { deleteUnder } from "../kit/bulk_writes.ts";
import { ulid } from "../kit/ids.ts";
import { readKey } from "../kit/reads.ts";
import { type PendingEntry, pendingKey, type SearchSource } from "../kit/search_source.ts";
import { foldOnce, type Sources } from "./fold.ts";
import { searchKeys } from "./keys.ts";
import { mergeOnce } from "./merge.ts";

/** Where the scan of an existing database is: the source index and the last ref queued. */
interface ScanState {
  done: boolean;
  source: number;
  after?: string[];
  queued: number;
}

const SCAN_BATCH = 300;

/**
 * Queues every stored item not yet scanned, `SCAN_BATCH` at a time, each batch in one atomic
 * with the scan's position (so a restart resumes where it stopped). Returns items queued.
 */
export async function scanExisting(
  kv: Deno.Kv,
  sources: readonly SearchSource[],
  log: (line: string) => void = () => {},
): Promise<number> {
  let entry = await readKey<ScanState>(kv, searchKeys.scan());
  let state = entry.value ?? { done: false, source: 0, queued: 0 };
  let total = 0;
  while (!state.done) {
    const source = sources[state.source];
    if (source === undefined) {
      state = { ...state, done: true };
    } else {
      const refs: string[][] = [];
      for await (const ref of source.scan(kv, state.after)) {
        refs.push(ref);
        if (refs.length >= SCAN_BATCH) break;
      }
      state = refs.length < SCAN_BATCH
        ? { done: false, source: state.source + 1, queued: state.queued + refs.length }
        : { ...state, after: refs.at(-1), queued: state.queued + refs.length };
      const op = atomic(kv).check(entry);
      for (const ref of refs) {
        const pending: PendingEntry = { load: { kind: source.kind, ref } };
        op.set(pendingKey(ulid()), pending);
      }
      total += refs.length;
      if (refs.length > 0) log(`search: queued ${state.queued} existing items (${source.kind})`);
      op.set(searchKeys.scan(), state);
      const res = await commitOnce(op);
      if (!res.ok) return total; // another process scans
      entry = await readKey<ScanState>(kv, searchKeys.scan());
      continue;
    }
    const op = atomic(kv).check(entry).set(searchKeys.scan(), state);
    await commitOnce(op);
  }
  return total;
}

/** Folds until nothing is pending (or another process holds the folder). */
export async function foldAll(
  kv: Deno.Kv,
  sources: Sources,
  batch: number,
  log: (line: string) => void = () => {},
): Promise<number> {
  let passages = 0;
  for (;;) {
    const report = await foldOnce(kv, sources, batch);
    if (report === null) return passages;
    passages += report.passages;
    log(`search: indexed ${passages} passages`);
  }
}

/** Drops the whole index (everything under the search prefix) and builds it again. */
export async function reindex(
  kv: Deno.Kv,
  sources: readonly SearchSource[],
  log: (line: string) => void = () => {},
  batch = 400,
): Promise<{ items: number; passages: number; ms: number }> {
  const started = performance.now();
  await deleteUnder(kv, searchKeys.all());
  const items = await scanExisting(kv, sources, log);
  const byKind = new Map(sources.map((s) => [s.kind, s]));
  const passages = await foldAll(kv, byKind, batch, log);
  while (await mergeOnce(kv, (kind) => byKind.get(kind)?.mutable === true) !== null) {
    log("search: merged segments");
  }
  return { items, passages, ms: Math.round(performance.now() - started) };
}

/**
 * Runs the index's background work in this process until `signal` aborts: the scan of an
 * existing database once, then a fold whenever entries are pending.
 */
export function startIndexer(
  kv: Deno.Kv,
  sources: readonly SearchSource[],
  options: { foldMs: number; batch: number; signal?: AbortSignal; log?: (l: string) => void },
): Promise<void> {
  const byKind = new Map(sources.map((s) => [s.kind, s]));
  const mutable = (kind: string) => byKind.get(kind)?.mutable === true;
  const log = options.log ?? ((l: string) => console.error(l));
  const run = async () => {
    try {
      await scanExisting(kv, sources, log);
    } catch (error) {
      if (!options.signal?.aborted) log(`search: scan stopped: ${(error as Error).message}`);
    }
    while (!options.signal?.aborted) {
      try {
        const report = await foldOnce(kv, byKind, options.batch);
        if (report !== null && report.records >= options.batch) continue;
        // Nothing (more) to fold: merge small segments, one run per turn.
        if (report === null && await mergeOnce(kv, mutable) !== null) continue;
      } catch (error) {
        if (options.signal?.aborted) return;
        log(`search: fold failed, retrying: ${(error as Error).message}`);
      }
      await sleep(options.foldMs, options.signal);
    }
  };
  return run();
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}
