/** `deno task export --markdown <folder>`: the Markdown export of the database at `KV_PATH`. */

import { openKv } from "../../kit/open_kv.ts";
import { exportMarkdown } from "./export.ts";

/** Runs the Markdown export with the arguments after `--markdown`; returns the exit code. */
export async function runMarkdownExport(
  kvPath: string | undefined,
  args: string[],
): Promise<number> {
  if (args.length !== 1 || args[0].startsWith("-")) {
    console.error("usage: deno task export --markdown <folder>");
    return 2;
  }
  const kv = await openKv(kvPath);
  try {
    const count = await exportMarkdown(kv, args[0]);
    console.error(`exported ${count} Markdown files to ${args[0]}`);
    return 0;
  } finally {
    kv.close();
  }
}
