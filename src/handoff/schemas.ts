/**
 * The zod shapes of the handoff tools' inputs and outputs. The JSON HTTP API validates its
 * bodies with the same shapes, so tools and API accept the same fields.
 */

import { z } from "zod";
import { nullableString } from "../mcp/schema.ts";
import type { HandoffLimits } from "./settings.ts";
import { MERGE_STRATEGIES } from "./store_merge.ts";
import { HANDOFF_STATUSES } from "./store_schema.ts";
import { QUERY_MAX_CHARS } from "./store_search.ts";

/** `handoff_save`'s input fields; the HTTP API validates its bodies with the same shape. */
export function saveShape(limits: HandoffLimits) {
  return {
    key: z.string().optional().describe(
      `Unique key to save under: 1–${limits.keyMaxChars} characters of A-Z a-z 0-9 _ - (not merge, search, stats or other route words). Omit to generate handoff-YYYYMMDD-HHMMSS-xxxxxx. An existing key is overwritten.`,
    ),
    title: z.string().optional().describe(
      `Short title, one line, at most ${limits.titleMaxChars} characters. Omit to use the summary's first line.`,
    ),
    summary: z.string().describe(
      `What the conversation is about, what was decided and where it stands: at most ${limits.summaryMaxBytes} bytes. This is the short version; the conversation itself goes in conversation.`,
    ),
    conversation: z.string().describe(
      `The WHOLE conversation VERBATIM, every message in order, each starting with a "## User" or "## Assistant" line. Do not summarise, shorten, paraphrase or drop code. At most ${limits.conversationMaxBytes} bytes (UTF-8) in total; if it does not fit in one call, send the first part here and the rest with handoff_append.`,
    ),
    from_ai: z.string().optional().describe(
      `The AI client saving this, e.g. "Claude Desktop" (one line, at most ${limits.nameMaxChars} characters)`,
    ),
    from_project: z.string().optional().describe(
      `The project or repository this belongs to (one line, at most ${limits.projectMaxChars} characters)`,
    ),
    status: z.enum(HANDOFF_STATUSES).optional().describe(
      "active (default): work continues; pending: waiting on something; completed: done, kept for reference",
    ),
    next_action: z.string().optional().describe(
      `The next thing the receiving AI should do (one line, at most ${limits.nextActionMaxChars} characters)`,
    ),
    tags: z.array(z.string()).optional().describe(
      `Up to ${limits.tagsMax} tags of 1–${limits.tagMaxChars} characters of a-z 0-9 _ : - . / (uppercase is lowercased), for handoff_search`,
    ),
  };
}

/** `handoff_merge`'s input fields; the HTTP API validates its bodies with the same shape. */
export function mergeShape(limits: HandoffLimits) {
  return {
    keys: z.array(z.string()).describe(
      `Keys of the handoffs to merge: 2–${limits.mergeSourcesMax}, each once`,
    ),
    new_key: z.string().optional().describe(
      "Key of the merged handoff (omit to generate one). It must not exist yet, unless it is one of the sources and delete_sources is true",
    ),
    new_title: z.string().optional().describe(
      'Title of the merged handoff (default "Merged: <source titles>")',
    ),
    new_summary: z.string().optional().describe(
      "Summary of the merged handoff (default: the sources' summaries, one after another)",
    ),
    delete_sources: z.boolean().optional().describe(
      "Delete the sources once merged (default false: keep them)",
    ),
    strategy: z.enum(MERGE_STRATEGIES).optional().describe(
      "sequential (default): parts in the order of keys; chronological: oldest source first",
    ),
  };
}

/** `handoff_search`'s input fields. */
export function searchShape(limits: HandoffLimits) {
  return {
    tags: z.array(z.string()).optional().describe("Match handoffs with ANY of these tags"),
    tags_all: z.array(z.string()).optional().describe("Match handoffs with ALL of these tags"),
    query: z.string().max(QUERY_MAX_CHARS).optional().describe(
      "Text to find, case-insensitive, in the title, summary or conversation",
    ),
    from_project: z.string().optional().describe(
      "Part of from_project, case-insensitive",
    ),
    from_ai: z.string().optional().describe('Part of from_ai, case-insensitive, e.g. "claude"'),
    status: z.enum(HANDOFF_STATUSES).optional().describe("Only handoffs with this status"),
    created_after: z.string().optional().describe(
      "ISO-8601 date or time, UTC unless it names a zone: created at or after it, e.g. 2025-06-01",
    ),
    created_before: z.string().optional().describe(
      "ISO-8601 date or time, UTC unless it names a zone: created before it",
    ),
    limit: z.number().int().min(1).max(limits.listPageMax).optional().describe(
      `Most matches to return, 1–${limits.listPageMax} (default 20)`,
    ),
    cursor: z.string().max(1000).optional().describe(
      "next_cursor from the previous page (with the same filters)",
    ),
  };
}

/** A handoff without its conversation, as list, search and the view get it. */
export const summarySchema = z.object({
  key: z.string(),
  title: z.string(),
  summary: z.string(),
  from_ai: nullableString(),
  from_project: nullableString(),
  status: z.enum(HANDOFF_STATUSES),
  next_action: nullableString(),
  tags: z.array(z.string()),
  created_at: z.string(),
  updated_at: z.string(),
  message_count: z.number().int(),
  bytes: z.number().int(),
  comment_count: z.number().int(),
  merged_from: z.array(z.string()).nullable(),
});

/** The handoff a write evicted to make room. */
export const evictedSchema = z.object({
  key: z.string(),
  title: z.string(),
  updated_at: z.string(),
})
  .nullable().describe("The handoff deleted to make room, or null");

/** The `key` argument of the tools that take one. */
export const keyArg = z.string().describe(
  "The handoff's key (handoff_list and handoff_search show them)",
);
