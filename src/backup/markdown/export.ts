/**
 * `deno task export --markdown <folder>`: everything the server keeps, as a folder a person can
 * read, diff and commit: one file per handoff, discussion, decision, plan, task, thinking
 * sequence and project, each with YAML front matter, and an `index.md` linking them. Names come
 * from ids and the order from KV's key order, so a second export of unchanged data is
 * byte-identical. The folder is written beside its place and swapped in whole.
 */

import { dirname, join } from "node:path";
import { exportProjects, exportSequences } from "./focus_thinking.ts";
import { exportHandoffs } from "./handoffs.ts";
import { type FileSink, frontMatter, type IndexEntry, type MarkdownFile } from "./files.ts";
import { exportTable } from "./table.ts";

/** The first line of an `index.md` this export wrote: how a folder is known to be one. */
const MARK = 'kind: "index"';

/** Calls `sink` for every file of the export, `index.md` last; returns how many files. */
export async function markdownFiles(
  kv: Deno.Kv,
  write: (file: MarkdownFile) => Promise<void>,
): Promise<number> {
  const entries: IndexEntry[] = [];
  const sink: FileSink = async (file, entry) => {
    await write(file);
    entries.push(entry);
  };
  await exportProjects(kv, sink);
  await exportHandoffs(kv, sink);
  await exportTable(kv, sink);
  await exportSequences(kv, sink);
  await write({ path: "index.md", text: indexText(entries) });
  return entries.length + 1;
}

function indexText(entries: IndexEntry[]): string {
  const sections = new Map<string, IndexEntry[]>();
  for (const e of entries) sections.set(e.section, [...(sections.get(e.section) ?? []), e]);
  const out = [frontMatter({ kind: "index", files: entries.length }), "# handoff-mcp export\n"];
  for (const [section, list] of sections) {
    out.push(`## ${section}\n`);
    out.push(
      list.map((e) => `- [${e.label.replace(/[[\]]/g, "\\$&")}](${encodeURI(e.path)})`).join("\n") +
        "\n",
    );
  }
  if (entries.length === 0) out.push("Nothing stored yet.\n");
  return out.join("\n");
}

/** True when `folder` does not exist, is empty, or holds an export this function wrote. */
async function replaceable(folder: string): Promise<boolean> {
  try {
    const index = await Deno.readTextFile(join(folder, "index.md"));
    return index.split("\n", 3).includes(MARK);
  } catch {
    try {
      for await (const _ of Deno.readDir(folder)) return false;
      return true;
    } catch {
      return true; // no such folder
    }
  }
}

/** Writes the export to `folder` (created, or a previous export replaced whole). */
export async function exportMarkdown(kv: Deno.Kv, folder: string): Promise<number> {
  if (!(await replaceable(folder))) {
    throw new Error(
      `${folder} exists and is not a Markdown export of this server: choose a new or empty folder`,
    );
  }
  const partial = join(dirname(folder), `.${folder.split("/").pop()}.partial-${Date.now()}`);
  const encoder = new TextEncoder();
  try {
    const count = await markdownFiles(kv, async (file) => {
      const path = join(partial, file.path);
      await Deno.mkdir(dirname(path), { recursive: true });
      await Deno.writeFile(path, encoder.encode(file.text));
    });
    await Deno.remove(folder, { recursive: true }).catch(() => {});
    await Deno.rename(partial, folder);
    return count;
  } catch (error) {
    await Deno.remove(partial, { recursive: true }).catch(() => {});
    throw error;
  }
}
