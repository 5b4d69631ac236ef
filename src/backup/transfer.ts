/**
 * Export every KV entry to JSON lines, and import such lines into a database: the whole file is
 * checked before anything is written, then written in checked atomics, between a marker that
 * says "running" (written first) and one that says "done" (written last), so an interrupted
 * import is recognised by the next one.
 */

import { atomic, commitOnce } from "../kit/commit.ts";
import { retryLocked } from "../kit/retry.ts";
import { IMPORT_MARKER_KEY, type ImportMarker } from "./marker.ts";
import { ExportCheck } from "./export_check.ts";
import { rebuildDerived } from "./rebuild.ts";
import { importProblem } from "./shapes.ts";
import {
  decodeHeader,
  decodeLine,
  encodeEntry,
  endLine,
  type Entry,
  headerLine,
  LineError,
} from "./codec.ts";
import { SEARCH_PREFIX } from "../kit/search_source.ts";

export { IMPORT_MARKER_KEY, type ImportMarker } from "./marker.ts";

/** Most entries in one import atomic (KV allows 100 checks per atomic). */
export const IMPORT_BATCH_ENTRIES = 100;
/** Characters of lines in one import atomic, well under KV's 800 KiB per atomic. */
export const IMPORT_BATCH_CHARS = 256 * 1024;
/** Entries between two progress lines. */
export const PROGRESS_EVERY = 1000;

/** Where progress goes (stderr in the CLI); silent by default. */
export type Progress = (message: string) => void;

/**
 * Writes the header, one line per entry in key order, and the end line; returns the count. Throws
 * `ExportRaced` (export_check.ts), before the end line, when a write meanwhile left the file
 * with a part it cannot hold (a handoff without its conversation, messages without their
 * discussion).
 */
export async function exportKv(
  kv: Deno.Kv,
  write: (line: string) => Promise<void>,
  progress: Progress = () => {},
): Promise<number> {
  await write(headerLine());
  let count = 0;
  const check = new ExportCheck();
  for await (const entry of kv.list({ prefix: [] })) {
    // The search index is derived data: import rebuilds it (`deno task import` reindexes).
    if (isMarker(entry.key) || entry.key[0] === SEARCH_PREFIX) continue;
    await write(encodeEntry(entry.key, entry.value));
    check.see(entry);
    if (++count % PROGRESS_EVERY === 0) progress(`exported ${count} entries…`);
  }
  // Before the end line: a file whose handoff lost its conversation is never complete.
  await check.verify(kv);
  await write(endLine(count));
  return count;
}

/** Reads the lines of a file, numbered from 1, without holding the whole file. */
export type LineSource = () => AsyncIterable<string>;

/**
 * Checks a whole export (header, every entry, each record of a known family in its declared
 * shape, no key twice, the end line with the right count, nothing after it); throws a
 * `LineError` naming the first bad line. Returns the entry count.
 */
export async function validateExport(lines: LineSource): Promise<number> {
  const seen = new Set<string>();
  let number = 0;
  let ended = false;
  for await (const text of lines()) {
    number++;
    if (number === 1) {
      decodeHeader(text);
      continue;
    }
    if (ended) throw lineError(number, "nothing may follow the end line");
    const decoded = decodeLine(text, number);
    if ("end" in decoded) {
      if (decoded.end !== seen.size) {
        throw lineError(
          number,
          `the end line counts ${decoded.end} entries, the file has ${seen.size}`,
        );
      }
      ended = true;
      continue;
    }
    if (isMarker(decoded.key)) throw lineError(number, "the import marker key cannot be imported");
    const problem = importProblem(decoded.key, decoded.value);
    if (problem !== undefined) throw lineError(number, problem);
    const id = keyId(decoded.key);
    if (seen.has(id)) throw lineError(number, "this key already appeared on an earlier line");
    seen.add(id);
  }
  if (number === 0) throw lineError(1, "the file is empty");
  if (!ended) {
    throw lineError(number + 1, "the file ends before its end line: it was cut short");
  }
  return seen.size;
}

/** Options of `importKv`. */
export interface ImportOptions {
  /** Overwrite keys that exist instead of refusing a database that holds anything. */
  merge: boolean;
  /** Name of the file, kept in the marker. */
  source: string;
  progress?: Progress;
}

/**
 * Imports a validated export, then rebuilds every derived key from the records (rebuild.ts).
 * Refuses a non-empty database (unless `merge`) and one a previous import left half-written
 * (unless this is the same file again, or `merge`: either completes it). Returns the entries
 * written.
 */
export async function importKv(
  kv: Deno.Kv,
  lines: LineSource,
  options: ImportOptions,
): Promise<number> {
  const progress = options.progress ?? (() => {});
  const entries = await validateExport(lines);
  const { running, merge } = await openImport(kv, entries, options);
  const written = await writeEntries(kv, lines, { merge, entries, progress });
  await rebuildWith(kv, progress);
  const done: ImportMarker = { ...running, state: "done", finishedAt: new Date().toISOString() };
  await retryLocked(() => kv.set(IMPORT_MARKER_KEY, done));
  return written;
}

/**
 * Sets the marker to "running" after the checks that the database may take the file: empty, or
 * `merge`, or left unfinished by an import of this same file (which this one then completes).
 */
async function openImport(
  kv: Deno.Kv,
  entries: number,
  options: ImportOptions,
): Promise<{ running: ImportMarker; merge: boolean }> {
  const marker = await retryLocked(() => kv.get<ImportMarker>(IMPORT_MARKER_KEY));
  const earlier = marker.value?.state === "running" ? marker.value : undefined;
  const merge = options.merge ||
    (earlier?.source === options.source && earlier.entries === entries);
  if (earlier !== undefined && !merge) {
    throw new Error(
      `an earlier import (of ${earlier.source}, ${earlier.entries} entries, started ` +
        `${earlier.startedAt}) was interrupted: this database holds part of it. Run that ` +
        "import again to complete it, pass --merge to write this file over it, or run " +
        "`deno task import --abandon` to keep what it wrote",
    );
  }
  if (!merge) {
    for await (const entry of kv.list({ prefix: [] }, { limit: 2 })) {
      if (isMarker(entry.key)) continue;
      throw new Error(
        "the database is not empty: import writes only into an empty one (pass --merge to " +
          "overwrite the keys the file holds and keep the others)",
      );
    }
  }
  const startedAt = new Date().toISOString();
  const running: ImportMarker = { state: "running", source: options.source, entries, startedAt };
  const opened = await commitOnce(
    atomic(kv).check(marker).set(IMPORT_MARKER_KEY, running),
  );
  if (!opened.ok) throw new Error("another import started on this database at the same time");
  return { running, merge };
}

/** Writes the file's entries in checked batches (each key still absent, unless `merge`). */
async function writeEntries(
  kv: Deno.Kv,
  lines: LineSource,
  { merge, entries, progress }: { merge: boolean; entries: number; progress: Progress },
): Promise<number> {
  let batch: { entry: Entry; line: number }[] = [];
  let chars = 0;
  let written = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    await writeBatch(kv, batch, merge);
    const before = written;
    written += batch.length;
    if (Math.floor(written / PROGRESS_EVERY) > Math.floor(before / PROGRESS_EVERY)) {
      progress(`imported ${written} of ${entries} entries…`);
    }
    batch = [];
    chars = 0;
  };
  let number = 0;
  for await (const text of lines()) {
    number++;
    if (number === 1) continue;
    const decoded = decodeLine(text, number);
    if ("end" in decoded) break;
    if (batch.length === IMPORT_BATCH_ENTRIES || chars + text.length > IMPORT_BATCH_CHARS) {
      await flush();
    }
    batch.push({ entry: decoded, line: number });
    chars += text.length;
  }
  await flush();
  return written;
}

async function writeBatch(
  kv: Deno.Kv,
  batch: { entry: Entry; line: number }[],
  merge: boolean,
): Promise<void> {
  const op = atomic(kv);
  for (const { entry } of batch) {
    if (!merge) op.check({ key: entry.key, versionstamp: null });
    op.set(entry.key, entry.value);
  }
  const lines = `lines ${batch[0].line}–${batch.at(-1)!.line}`;
  const result = await commitOnce(op).catch((error: Error) => {
    throw new Error(`${lines} could not be written: ${error.message}`);
  });
  if (!result.ok) {
    throw new Error(
      `${lines}: a key appeared meanwhile (another writer is using this database); the import ` +
        "stopped and is marked interrupted",
    );
  }
}

/**
 * Gives up an interrupted import: what it wrote stays, its derived data is rebuilt from it, and
 * the marker says "abandoned", so a server starts on it again. Throws if no import is unfinished.
 */
export async function abandonImport(kv: Deno.Kv, progress: Progress = () => {}): Promise<void> {
  const marker = await retryLocked(() => kv.get<ImportMarker>(IMPORT_MARKER_KEY));
  if (marker.value?.state !== "running") {
    throw new Error("no import is unfinished on this database: there is nothing to abandon");
  }
  await rebuildWith(kv, progress);
  const abandoned: ImportMarker = {
    ...marker.value,
    state: "abandoned",
    finishedAt: new Date().toISOString(),
  };
  const result = await commitOnce(
    atomic(kv).check(marker).set(IMPORT_MARKER_KEY, abandoned),
  );
  if (!result.ok) throw new Error("another import changed this database meanwhile");
}

async function rebuildWith(kv: Deno.Kv, progress: Progress): Promise<void> {
  progress("rebuilding counters and indexes from the records…");
  const report = await rebuildDerived(kv);
  const changed = Object.entries(report)
    .filter(([, r]) => r.written + r.deleted > 0)
    .map(([name, r]) => `${name}: ${r.written} written, ${r.deleted} deleted`);
  progress(
    `counters and indexes ${
      changed.length ? `corrected (${changed.join("; ")})` : "agree with the records"
    }`,
  );
}

/** The lines of a text file, read as a stream. */
export function fileLines(path: string): LineSource {
  return async function* () {
    const file = await Deno.open(path);
    // Reading the stream to its end, or leaving the loop early, closes the file.
    let buffered = "";
    for await (const chunk of file.readable.pipeThrough(new TextDecoderStream())) {
      let from = buffered.length;
      buffered += chunk;
      let newline;
      while ((newline = buffered.indexOf("\n", from)) !== -1) {
        yield buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        from = 0;
      }
    }
    if (buffered !== "") yield buffered;
  };
}

function isMarker(key: Deno.KvKey): boolean {
  return key.length === 1 && key[0] === IMPORT_MARKER_KEY[0];
}

function keyId(key: Deno.KvKey): string {
  return encodeEntry(key, null);
}

function lineError(line: number, reason: string): LineError {
  return new LineError(line, reason);
}
