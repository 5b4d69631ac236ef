/**
 * Which export a file is, from its content: the first item of its JSON says (a ChatGPT
 * conversation has a `mapping`, a Claude one `chat_messages`, a Claude project a `uuid` and
 * `prompt_template` or `docs`, Claude's memory `conversations_memory`, Takeout activity a
 * `header`, `title` and `time`). File names are never consulted. A file that is JSON but cut
 * short or unreadable is named even inside a folder or zip; media and other files are not.
 */

import { isChatGpt } from "./chatgpt.ts";
import { isClaudeConversation, isClaudeMemory, isClaudeProject } from "./claude.ts";
import { isActivity } from "./gemini.ts";
import { jsonItems, JsonStreamError } from "./json_stream.ts";
import type { ChatSource } from "./sources.ts";

/** The kinds of export file, in the order an import reads them (project names come first). */
export const KIND_ORDER = [
  "claude-projects",
  "claude-memory",
  "claude",
  "chatgpt",
  "gemini",
] as const;

/** One kind of export file. */
export type ExportKind = typeof KIND_ORDER[number];

/** The kind of one item, or null. */
export function kindOf(item: unknown): ExportKind | null {
  if (isChatGpt(item)) return "chatgpt";
  if (isClaudeConversation(item)) return "claude";
  if (isClaudeMemory(item)) return "claude-memory";
  if (isClaudeProject(item)) return "claude-projects";
  if (isActivity(item)) return "gemini";
  return null;
}

const NONE = "not a ChatGPT, Claude or Gemini export (detected by content: " +
  "ChatGPT conversations*.json, Claude conversations.json / projects.json / memories.json, " +
  "Gemini MyActivity.json)";

/** Reads `source` up to its first readable item and says what it is, or why it is none. */
export async function classify(
  source: ChatSource,
  maxItemBytes: number,
): Promise<{ kind: ExportKind } | { problem: string; damaged: boolean }> {
  try {
    const stream = await source.open();
    for await (const item of jsonItems(stream, maxItemBytes)) {
      if (item.error !== undefined) continue; // the reading pass names it
      const kind = kindOf(item.value);
      return kind === null ? { problem: NONE, damaged: false } : { kind };
    }
    return { problem: "an empty export: nothing to import", damaged: false };
  } catch (error) {
    if (error instanceof JsonStreamError) {
      return error.notJson
        ? { problem: `${error.message}; ${NONE}`, damaged: false }
        : { problem: error.message, damaged: true };
    }
    // A zip entry that cannot be inflated, a file that cannot be read: always named.
    return { problem: (error as Error).message, damaged: true };
  }
}
