/**
 * `deno task import-chats [--keep-hidden] <file|folder|zip>…`: ChatGPT, Claude and Gemini
 * exports into the database at `KV_PATH`, each conversation its own handoff. Progress lines and
 * the summary go to stderr (one line each, so they read right when piped too); exit code 1 when
 * nothing could be read or the import stopped at a limit.
 */

import { fileURLToPath } from "node:url";
import { loadConfig } from "../../config.ts";
import { loadHandoffSettings } from "../../handoff/settings.ts";
import { openKv } from "../../kit/open_kv.ts";
import { importChats, type ImportSummary } from "./importer.ts";
import { loadImportOptions } from "./model.ts";
import { sourcesOf } from "./sources.ts";

const USAGE = "usage: deno task import-chats [--keep-hidden] <file|folder|zip>…";

/** Runs the import of `args`; returns the exit code. */
export async function runImportChats(args: string[]): Promise<number> {
  const paths = args.filter((a) => !a.startsWith("--"));
  const flags = args.filter((a) => a.startsWith("--"));
  if (paths.length === 0 || flags.some((f) => f !== "--keep-hidden")) {
    console.error(USAGE);
    return 2;
  }
  try {
    const config = loadConfig(Deno.env, fileURLToPath(new URL("../../..", import.meta.url)));
    const { limits } = loadHandoffSettings(Deno.env);
    const options = loadImportOptions(Deno.env, flags.includes("--keep-hidden"));
    const { sources, problems } = await sourcesOf(paths);
    for (const p of problems) console.error(`skipped ${p}`);
    const kv = await openKv(config.kvPath);
    const sampler = setInterval(sampleRss, 50);
    try {
      const summary = await importChats(
        { kv, limits, report: (line) => console.error(line) },
        sources,
        options,
      );
      for (const line of summaryLines(summary, problems.length)) console.error(line);
      const read = summary.files.length > 0;
      return summary.stopped !== null || !read ? 1 : 0;
    } finally {
      clearInterval(sampler);
      kv.close();
    }
  } catch (error) {
    console.error(`handoff-mcp import-chats: ${(error as Error).message}`);
    return 1;
  }
}

/** The summary an import ends with; the process's peak memory too, unless it is the server's. */
export function summaryLines(s: ImportSummary, unreadable = 0, withPeak = true): string[] {
  const lines = [
    `imported ${s.imported}, updated ${s.updated}, unchanged ${s.unchanged}, skipped ${
      s.skipped.length + unreadable
    }; branches left out ${s.branchesLeftOut}, attachments named ${s.attachments}, hidden messages left out ${s.hiddenLeftOut}`,
    `read ${s.files.length} export files (${
      s.files.map((f) => f.kind).join(", ") || "none"
    }), ignored ${s.ignored} other files`,
  ];
  const peak = withPeak ? peakRss() : null;
  if (peak !== null) lines.push(`peak RSS ${(peak / 1024 / 1024).toFixed(1)} MiB`);
  if (s.stopped !== null) lines.push(s.stopped);
  return lines;
}

/** The highest resident memory sampled so far (every 50 ms while an import runs). */
let sampledPeak = 0;

function sampleRss(): void {
  sampledPeak = Math.max(sampledPeak, Deno.memoryUsage().rss);
}

/**
 * The process's peak resident memory: Linux's `VmHWM` where the process may read it (Deno asks
 * for every permission to read `/proc/self`), else the highest sample.
 */
export function peakRss(): number | null {
  sampleRss();
  try {
    const status = Deno.readTextFileSync("/proc/self/status");
    const kb = status.match(/^VmHWM:\s+(\d+) kB/m)?.[1];
    if (kb !== undefined) return Number(kb) * 1024;
  } catch {
    // Not Linux, or not every permission: the samples say it.
  }
  return sampledPeak;
}

if (import.meta.main) Deno.exit(await runImportChats(Deno.args));
