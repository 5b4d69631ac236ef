/**
 * The zod shapes of the handoff tools' inputs and outputs. The JSON HTTP API validates its
 * bodies with the same shapes, so tools and API accept the same fields.
 */

import { z } from "zod";
import { nullableString } from "../tools/schema.ts";
import type { HandoffLimits } from "./settings.ts";
import { MERGE_STRATEGIES } from "./store_merge.ts";
import { HANDOFF_STATUSES } from "./store_schema.ts";
import { QUERY_MAX_CHARS } from "./store_search.ts";

/** `handoff_save`'s input fields; the HTTP API validates its bodies with the same shape. */
export function saveShape(limits: HandoffLimits) {
  return {
    key: z.string().optional().describe(
      "A-Z a-z 0-9 _ - (default: generated); replaces that key's handoff",
    ),
    title: z.string().optional().describe(
      "Default: the summary's first line",
    ),
    summary: z.string().describe(
      "What it is about and where it stands",
    ),
    conversation: z.string().describe(
      `Every message, each opening with "## User" or "## Assistant"`,
    ),
    from_ai: z.string().optional().describe(
      'Your client, e.g. "Claude Desktop"',
    ),
    from_project: z.string().optional().describe(
      "Project or repository",
    ),
    status: z.enum(HANDOFF_STATUSES).optional().describe(
      "Default active",
    ),
    next_action: z.string().optional().describe(
      "What the next AI should do",
    ),
    tags: z.array(z.string()).optional().describe(
      `Up to ${limits.tagsMax}, of a-z 0-9 _ : - . /`,
    ),
  };
}

/** `handoff_merge`'s input fields; the HTTP API validates its bodies with the same shape. */
export function mergeShape(limits: HandoffLimits) {
  return {
    keys: z.array(z.string()).describe(
      `2–${limits.mergeSourcesMax} keys, each once`,
    ),
    new_key: z.string().optional().describe(
      "New, or a source deleted by delete_sources",
    ),
    new_title: z.string().optional().describe(
      'Default "Merged: …"',
    ),
    new_summary: z.string().optional().describe(
      "Default: the sources' summaries",
    ),
    delete_sources: z.boolean().optional().describe(
      "Delete the sources (default false)",
    ),
    strategy: z.enum(MERGE_STRATEGIES).optional().describe(
      "sequential (order of keys; default) or chronological",
    ),
  };
}

/** `handoff_search`'s input fields. */
export function searchShape(limits: HandoffLimits) {
  return {
    tags: z.array(z.string()).optional().describe("Any of these"),
    tags_all: z.array(z.string()).optional().describe("All of these"),
    query: z.string().max(QUERY_MAX_CHARS).optional().describe(
      "Text in title, summary or conversation",
    ),
    from_project: z.string().optional().describe(
      "Part of it",
    ),
    from_ai: z.string().optional().describe('Part of it, e.g. "claude"'),
    status: z.enum(HANDOFF_STATUSES).optional().describe("Only this status"),
    created_after: z.string().optional().describe(
      "ISO-8601, e.g. 2025-06-01",
    ),
    created_before: z.string().optional().describe(
      "ISO-8601",
    ),
    limit: z.number().int().min(1).max(limits.listPageMax).optional().describe(
      "Default 20",
    ),
    cursor: z.string().max(1000).optional().describe("Read on"),
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
  "See handoff_list",
);
