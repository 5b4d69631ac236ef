/**
 * `deno task import-memory <memory.jsonl|memory.json> [--graph NAME]`: an official memory
 * server's file into a graph of the database at `KV_PATH` (the graph `MEMORY_GRAPH` names, or
 * `--graph`). What it added and skipped goes to stderr; a refusal is one line and exit code 1.
 */

import { fileURLToPath } from "node:url";
import { loadConfig } from "../config.ts";
import { openKv } from "../kit/open_kv.ts";
import { importMemory, MEMORY_FILE_MAX_BYTES, parseMemoryFile } from "../memory/import.ts";
import { loadMemorySettings } from "../memory/settings.ts";
import { checkGraphName } from "../memory/store_keys.ts";

const USAGE = "usage: deno task import-memory <memory.jsonl|memory.json> [--graph NAME]";

/** Runs the import in `args`; returns the exit code. */
export async function runImportMemory(args: string[]): Promise<number> {
  const at = args.indexOf("--graph");
  const graphArg = at >= 0 ? args[at + 1] : undefined;
  const files = args.filter((a, i) => !a.startsWith("-") && (at < 0 || i !== at + 1));
  if (files.length !== 1 || (at >= 0 && graphArg === undefined)) {
    console.error(USAGE);
    return 2;
  }
  try {
    const config = loadConfig(Deno.env, fileURLToPath(new URL("../..", import.meta.url)));
    const settings = loadMemorySettings(Deno.env);
    const graph = graphArg === undefined
      ? settings.defaultGraph
      : checkGraphName(graphArg, "--graph");
    const info = await Deno.stat(files[0]).catch(() => {
      throw new Error(`cannot read ${files[0]}: no such file`);
    });
    if (!info.isFile || info.size > MEMORY_FILE_MAX_BYTES) {
      throw new Error(
        `${files[0]} must be a regular file of at most ${MEMORY_FILE_MAX_BYTES} bytes`,
      );
    }
    const parsed = parseMemoryFile(await Deno.readTextFile(files[0]));
    const kv = await openKv(config.kvPath);
    try {
      const r = await importMemory(
        { kv, limits: settings.limits },
        graph,
        parsed,
        { name: config.clientName ?? "local", via: "local" },
        (m) => console.error(m),
      );
      console.error(
        `graph ${graph}: added ${r.entitiesAdded} entities, ${r.observationsAdded} observations to entities that were there, ${r.relationsAdded} relations; skipped ${r.skipped} already present`,
      );
    } finally {
      kv.close();
    }
    return 0;
  } catch (error) {
    console.error(`handoff-mcp import-memory: ${(error as Error).message}`);
    return 1;
  }
}

if (import.meta.main) Deno.exit(await runImportMemory(Deno.args));
