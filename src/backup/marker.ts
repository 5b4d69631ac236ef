/**
 * The import marker: one key an import sets to "running" before it writes anything and to "done"
 * after its last write and the rebuild of derived data. A server refuses to start on a database
 * whose marker says "running" (`unfinishedImport`): it holds part of a file, and counters that
 * do not match it yet.
 */

import { readKey } from "../kit/reads.ts";

/** Key of the import marker; it is never exported. */
export const IMPORT_MARKER_KEY: Deno.KvKey = ["__handoff_mcp_import__"];

/** What the marker holds while an import runs, after it finished, or after it was abandoned. */
export interface ImportMarker {
  state: "running" | "done" | "abandoned";
  source: string;
  entries: number;
  startedAt: string;
  finishedAt?: string;
}

/** The command that completes an interrupted import, and the one that gives it up. */
export const RESUME_HINT = "run the same `deno task import <file>` again to complete it, or " +
  "`deno task import --abandon` to keep what it wrote (counters rebuilt from it) and serve that";

/**
 * Why a server must not serve this database (an import was interrupted), or `undefined`.
 */
export async function unfinishedImport(kv: Deno.Kv): Promise<string | undefined> {
  const marker = (await readKey<ImportMarker>(kv, IMPORT_MARKER_KEY)).value;
  if (marker?.state !== "running") return undefined;
  return `an import of ${marker.source} (${marker.entries} entries, started ${marker.startedAt}) ` +
    `did not finish: this database holds only part of it. ${RESUME_HINT}`;
}
