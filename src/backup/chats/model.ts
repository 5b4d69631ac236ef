/**
 * What the chat importers share: one conversation as read from a vendor's export (`ChatDoc`),
 * the import settings, and the small text helpers every vendor module uses (fences, times,
 * titles).
 */

import { type EnvSource, intVar } from "../../kit/env.ts";

/** The vendors whose exports are read. */
export type Vendor = "chatgpt" | "claude" | "gemini";

/** How each vendor is named in `from_ai`. */
export const VENDOR_NAMES: Record<Vendor, string> = {
  chatgpt: "ChatGPT",
  claude: "Claude",
  gemini: "Gemini",
};

/** One turn of the visible thread. */
export interface Turn {
  role: "user" | "assistant";
  /** ISO time of the turn, when the source has it. */
  time: string | null;
  text: string;
}

/** One conversation (or a Claude project or memory) ready to become a handoff. */
export interface ChatDoc {
  vendor: Vendor;
  /** The handoff key: `chatgpt-<id>`, `claude-<uuid>`, `gemini-<hash>`, `claude-project-<uuid>`… */
  key: string;
  /** The source's title; null when it has none (a title is made from the first prompt). */
  title: string | null;
  createdAt: string | null;
  updatedAt: string | null;
  /** The visible thread; empty for a note (a project or the memory), which has `body`. */
  turns: Turn[];
  /** Text of a note: a Claude project or memory, written as one `## User` section. */
  body?: string;
  tags: string[];
  /** Abandoned branches (edits, regenerations) left out of the thread. */
  branchesLeftOut: number;
  /** Images, files and attachments named in place. */
  attachments: number;
  /** Messages left out: hidden, system, thoughts (kept with `keepHidden`). */
  hiddenLeftOut: number;
  /** Content types not known to the importer, named in place. */
  unknownTypes: string[];
}

/** What one vendor module makes of one item of an export: a conversation, or why it is skipped. */
export type Parsed = { doc: ChatDoc } | { skip: string } | { none: true };

/** Choices of one import. */
export interface ImportOptions {
  /** Keep hidden and system messages and thoughts (`--keep-hidden`). */
  keepHidden: boolean;
  /** Gemini turns further apart than this start a new conversation (`CHATS_GEMINI_GAP_MINUTES`). */
  geminiGapMinutes: number;
  /** Largest item of an export read into memory (`CHATS_ITEM_MAX_BYTES`). */
  itemMaxBytes: number;
}

/** Reads the import settings; throws an `Error` naming a bad variable. */
export function loadImportOptions(env: EnvSource, keepHidden = false): ImportOptions {
  return {
    keepHidden,
    geminiGapMinutes: intVar(env, "CHATS_GEMINI_GAP_MINUTES", 30, 1, 7 * 24 * 60),
    itemMaxBytes: intVar(env, "CHATS_ITEM_MAX_BYTES", 256 * 1024 * 1024, 1024, 1024 ** 3),
  };
}

/** A fence of `char` longer than any run of it at a line start in `text` (at least three). */
export function fenced(text: string, info = "", char = "`"): string {
  let longest = 0;
  const runs = char === "`" ? /^ {0,3}(`+)/gm : /^ {0,3}(~+)/gm;
  for (const m of text.matchAll(runs)) longest = Math.max(longest, m[1].length);
  const fence = char.repeat(Math.max(3, longest + 1));
  return `${fence}${info}\n${text.replace(/\n$/, "")}\n${fence}`;
}

/** ISO time of epoch seconds, or null for anything that is not a finite number. */
export function isoOfEpoch(seconds: unknown): string | null {
  if (typeof seconds !== "number" || !Number.isFinite(seconds)) return null;
  const date = new Date(seconds * 1000);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

/** ISO time of an ISO-like string, or null when it does not parse. */
export function isoOfString(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

/** A single line: no control characters, whitespace runs as one space, well-formed Unicode. */
export function oneLine(text: string): string {
  // deno-lint-ignore no-control-regex
  return text.toWellFormed().replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\s]+/g, " ").trim();
}

/** `text` cut to `max` characters with "…". */
export function cutChars(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join("").trimEnd()}…`;
}

/** A title made from the first prompt, or a plain one when there is none. */
export function titleOf(doc: ChatDoc): string {
  const given = doc.title === null ? "" : oneLine(doc.title);
  if (given !== "") return cutChars(given, 120);
  const first = doc.turns.find((t) => t.role === "user" && t.text.trim() !== "");
  const line = first ? oneLine(first.text.replace(/^[#>*_\s-]+/, "")) : "";
  return line === "" ? `Untitled ${VENDOR_NAMES[doc.vendor]} conversation` : cutChars(line, 80);
}

/** A tag from free text: lowercase `a-z 0-9 _ : . / -`, at most `max` characters. */
export function tagOf(prefix: string, text: string, max = 50): string | null {
  const slug = text.toLowerCase().normalize("NFKD").replace(/[^a-z0-9_.\/-]+/g, "-")
    .replace(/-+/g, "-").replace(/^-|-$/g, "");
  if (slug === "") return null;
  return `${prefix}${slug}`.slice(0, max).replace(/-$/, "");
}

/** A key part from a source id: kept when it is `[A-Za-z0-9_-]`, otherwise a stable hash. */
export function keyPart(id: string, hash: (text: string) => string): string {
  return /^[A-Za-z0-9_-]{1,60}$/.test(id) ? id : hash(id).slice(0, 24);
}
