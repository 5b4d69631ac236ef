/**
 * What every file of the Markdown export shares: stable, safe file names, the YAML front matter
 * (strings double-quoted as JSON, which YAML reads the same), and the page an exporter builds.
 */

import { hashText } from "../chats/digest.ts";

/** One file of the export: its path under the folder and its text. */
export interface MarkdownFile {
  path: string;
  text: string;
}

/** A line of `index.md`: which section, the link text and the file. */
export interface IndexEntry {
  section: string;
  label: string;
  path: string;
}

/** Receives each file as it is made, so the export never holds them all. */
export type FileSink = (file: MarkdownFile, entry: IndexEntry) => Promise<void>;

/**
 * A file name from any id or name: kept when it is `[A-Za-z0-9._-]` (and not `.`-led), otherwise
 * the safe characters plus a short hash of the original, so two names never meet in one file.
 */
export function safeName(name: string): string {
  const safe = name.replace(/[^A-Za-z0-9._-]+/g, "_").replace(/^[._]+/, "").slice(0, 80);
  if (safe === name && safe !== "") return safe;
  return `${safe === "" ? "x" : safe}-${hashText(name).slice(0, 8)}`;
}

/** One value of the front matter, or undefined to leave its line out. */
type FrontValue = string | number | boolean | string[] | null | undefined;

/** The front matter block: `---`, one `key: value` line each (nulls left out), `---`. */
export function frontMatter(fields: Record<string, FrontValue>): string {
  const lines = ["---"];
  for (const [key, value] of Object.entries(fields)) {
    if (value === null || value === undefined) continue;
    lines.push(
      `${key}: ${
        Array.isArray(value)
          ? `[${value.map((v) => JSON.stringify(v)).join(", ")}]`
          : JSON.stringify(value)
      }`,
    );
  }
  lines.push("---", "");
  return lines.join("\n");
}

/** A heading line's text: one line, Markdown that cannot break out of it. */
export function headingText(text: string): string {
  return text.replace(/\s+/g, " ").trim() || "(untitled)";
}

/** `text` ending with exactly one line break. */
export function endLine(text: string): string {
  return text.replace(/\s+$/, "") + "\n";
}
