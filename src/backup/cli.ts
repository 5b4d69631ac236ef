/**
 * `deno task export [file]` and `deno task import <file> [--merge]`: the database at `KV_PATH`
 * (default `data/handoff.kv` in the project folder; a KV Connect URL works too) to JSON lines and
 * back. Progress and the outcome go to stderr; a failure is one line and exit code 1.
 */

import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadConfig } from "../config.ts";
import { openKv } from "../kit/kv.ts";
import { exportKv, fileLines, importKv } from "./transfer.ts";
import { runMarkdownExport } from "./markdown/cli.ts";

const USAGE = "usage: deno task export [file]  |  deno task import <file> [--merge]";
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

async function exportTo(kvPath: string | undefined, file: string | undefined): Promise<void> {
  const kv = await openKv(kvPath);
  // A file is written beside its final name and renamed at the end: never a half file.
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
    console.error(`exported ${count} entries from ${kvPath ?? "the default database"}`);
  } catch (error) {
    if (partial !== undefined) {
      await writer.abort().catch(() => {});
      await Deno.remove(partial).catch(() => {});
    }
    throw error;
  } finally {
    kv.close();
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
  } finally {
    kv.close();
  }
}

if (import.meta.main) Deno.exit(await runBackupCli(Deno.args));
