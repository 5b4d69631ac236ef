/**
 * `deno task export [file]`, `deno task import <file> [--merge]` and `deno task import --abandon`
 * (gives up an interrupted import, see transfer.ts): the database at `KV_PATH`
 * (default `data/handoff.kv` in the project folder; a KV Connect URL works too) to JSON lines and
 * back. Progress and the outcome go to stderr; a failure is one line and exit code 1.
 */

import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadConfig } from "../config.ts";
import { openKv } from "../kit/open_kv.ts";
import { abandonImport, exportKv, fileLines, importKv } from "./transfer.ts";
import { ExportRaced } from "./export_check.ts";
import { runMarkdownExport } from "./markdown/cli.ts";
import { reindexSearch } from "../toolsets.ts";

const USAGE = "usage: deno task export [file]  |  deno task import <file> [--merge]  |  " +
  "deno task import --abandon  |  deno task export --markdown <folder>";
/** Bytes collected before one write to the output. */
const WRITE_CHUNK = 64 * 1024;

/** Runs the subcommand in `args`; returns the exit code. */
export async function runBackupCli(args: string[]): Promise<number> {
  const [command, ...rest] = args;
  try {
    const config = loadConfig(Deno.env, fileURLToPath(new URL("../..", import.meta.url)));
    if (command === "export" && rest[0] === "--markdown") {
      return await runMarkdownExport(config.kvPath, rest.slice(1));
    }
    if (command === "export" && rest.length <= 1 && !rest[0]?.startsWith("-")) {
      await exportTo(config.kvPath, rest[0]);
      return 0;
    }
    if (command === "import" && rest.length === 1 && rest[0] === "--abandon") {
      await abandon(config.kvPath);
      return 0;
    }
    const files = rest.filter((a) => a !== "--merge");
    if (command === "import" && files.length === 1 && !files[0].startsWith("-")) {
      await importFrom(config.kvPath, files[0], rest.includes("--merge"));
      return 0;
    }
    console.error(USAGE);
    return 2;
  } catch (error) {
    console.error(`handoff-mcp ${command}: ${(error as Error).message}`);
    return 1;
  }
}

/** Times an export to a file is taken again when writes meanwhile spoilt it (ExportRaced). */
export const EXPORT_ATTEMPTS = 3;

async function exportTo(kvPath: string | undefined, file: string | undefined): Promise<void> {
  const kv = await openKv(kvPath);
  try {
    for (let attempt = 1;; attempt++) {
      try {
        const count = await exportOnce(kv, file);
        console.error(`exported ${count} entries from ${kvPath ?? "the default database"}`);
        return;
      } catch (error) {
        // Standard output cannot be taken back: only a file export is taken again.
        if (!(error instanceof ExportRaced) || file === undefined) throw error;
        if (attempt === EXPORT_ATTEMPTS) {
          throw new Error(`${error.message} (${EXPORT_ATTEMPTS} attempts)`);
        }
        console.error(`${error.message}: taking the export again…`);
      }
    }
  } finally {
    kv.close();
  }
}

/** One export to `file` (written beside it and renamed at the end: never a half file) or stdout. */
async function exportOnce(kv: Deno.Kv, file: string | undefined): Promise<number> {
  const partial = file === undefined
    ? undefined
    : join(dirname(file), `.${basename(file)}.partial`);
  const out = partial === undefined
    ? Deno.stdout.writable
    : (await Deno.open(partial, { write: true, create: true, truncate: true })).writable;
  const writer = out.getWriter();
  const encoder = new TextEncoder();
  let pending = "";
  const write = async (line: string) => {
    pending += line + "\n";
    if (pending.length >= WRITE_CHUNK) {
      await writer.write(encoder.encode(pending));
      pending = "";
    }
  };
  try {
    const count = await exportKv(kv, write, (m) => console.error(m));
    await writer.write(encoder.encode(pending));
    if (partial !== undefined) {
      await writer.close();
      await Deno.rename(partial, file!);
    } else {
      writer.releaseLock();
    }
    return count;
  } catch (error) {
    if (partial !== undefined) {
      await writer.abort().catch(() => {});
      await Deno.remove(partial).catch(() => {});
    }
    throw error;
  }
}

async function importFrom(kvPath: string | undefined, file: string, merge: boolean): Promise<void> {
  await Deno.stat(file).catch(() => {
    throw new Error(`cannot read ${file}: no such file`);
  });
  const kv = await openKv(kvPath);
  try {
    const count = await importKv(kv, fileLines(file), {
      merge,
      source: basename(file),
      progress: (m) => console.error(m),
    });
    console.error(`imported ${count} entries into ${kvPath ?? "the default database"}`);
    // The search index is derived (an export leaves it out): rebuilt from what was imported.
    const indexed = await reindexSearch(kv, (m) => console.error(m));
    console.error(`search index rebuilt: ${indexed.items} items, ${indexed.passages} passages`);
  } finally {
    kv.close();
  }
}

async function abandon(kvPath: string | undefined): Promise<void> {
  const kv = await openKv(kvPath);
  try {
    await abandonImport(kv, (m) => console.error(m));
    console.error(
      `abandoned the unfinished import into ${kvPath ?? "the default database"}: what it wrote ` +
        "stays, and a server starts on it again",
    );
  } finally {
    kv.close();
  }
}

if (import.meta.main) Deno.exit(await runBackupCli(Deno.args));
