/**
 * The chat importer's test fixtures: an import run on paths into a KV (its summary with the
 * problems and the progress lines), a handoff's conversation, and a temporary folder.
 */

import { DEFAULT_HANDOFF_LIMITS, type HandoffLimits } from "../../src/handoff/settings.ts";
import { loadHandoff } from "../../src/handoff/store_read.ts";
import { importChats, type ImportSummary } from "../../src/backup/chats/importer.ts";
import { loadImportOptions } from "../../src/backup/chats/model.ts";
import { sourcesOf } from "../../src/backup/chats/sources.ts";

/** The default handoff limits. */
export const LIMITS: HandoffLimits = { ...DEFAULT_HANDOFF_LIMITS };

/** Imports `paths` into `kv`; the summary lists unreadable paths among the skipped. */
export async function run(
  kv: Deno.Kv,
  paths: string[],
  limits = LIMITS,
  keepHidden = false,
): Promise<ImportSummary & { lines: string[] }> {
  const lines: string[] = [];
  const { sources, problems } = await sourcesOf(paths);
  const summary = await importChats(
    { kv, limits, report: (l) => lines.push(l) },
    sources,
    loadImportOptions(new Map(), keepHidden),
  );
  return { ...summary, skipped: [...problems, ...summary.skipped], lines };
}

/** The conversation of the handoff `key`. */
export async function conversation(kv: Deno.Kv, key: string): Promise<string> {
  return (await loadHandoff(kv, LIMITS, key)).conversation;
}

/** Runs `fn` with a temporary folder, removed after. */
export async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "chats-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** JSON text of `v`. */
export const json = (v: unknown) => JSON.stringify(v);
