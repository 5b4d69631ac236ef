/**
 * The `search` and `fetch` tools, in the shapes ChatGPT's deep research expects: one text item
 * whose text is the JSON object, and the same object as `structuredContent`, its first key the
 * `untrusted` notice (titles, snippets and texts were written by other sessions).
 */

import { z } from "zod";
import { estimateTokens } from "../kit/budget.ts";
import { AppError } from "../kit/errors.ts";
import { newNonce, untrustedNotice } from "../kit/untrusted.ts";
import type { ToolRegistrar } from "../tools/registry.ts";
import { UNTRUSTED_FIELDS } from "../tools/results.ts";
import { nullableString, toolArgs } from "../tools/schema.ts";
import type { McpDeps } from "../tools/toolset.ts";
import type { Sources } from "./fold.ts";
import { fetchItem, itemId, itemPath, search } from "./service.ts";
import type { SearchSettings } from "./settings.ts";

/** What the search tools are built with. */
export interface SearchToolDeps {
  sources: Sources;
  settings: SearchSettings;
  kv: Deno.Kv;
  /** Where result links point (`PUBLIC_URL`, else this server's address). */
  base: string;
}

const ANNOTATIONS = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

/** The base of result links: `PUBLIC_URL`, else this server's address. */
export function baseUrl(deps: McpDeps): string {
  const c = deps.config;
  return c.oauth.publicUrl ?? `http://${c.host.includes(":") ? `[${c.host}]` : c.host}:${c.port}`;
}

/** One JSON object as both views. */
function jsonResult(data: Record<string, unknown>) {
  return {
    content: [{ type: "text" as const, text: JSON.stringify(data) }],
    structuredContent: data,
  };
}

const resultSchema = z.object({
  id: z.string(),
  title: z.string(),
  url: z.string(),
  kind: z.string(),
  snippet: z.string(),
  score: z.number(),
  author: nullableString(),
  via: nullableString(),
  workspace: nullableString(),
  project_id: nullableString(),
  created_at: z.string(),
  uri: nullableString(),
});

/** The fields of a search result that hold text sessions wrote (names and places included). */
const SEARCH_UNTRUSTED = [
  "results[].title",
  "results[].snippet",
  "results[].author",
  "results[].workspace",
  "results[].project_id",
];

/** What `fetch` says about an item: the kind's facts, each a string. */
const metadataSchema = z.object({
  kind: z.string(),
  created_at: z.string(),
  workspace: z.string().optional(),
  project_id: z.string().optional(),
  author: z.string().optional(),
  via: z.string().optional(),
  uri: z.string().optional(),
  truncated: z.string().optional().describe("How to read on when the text was cut"),
  ...Object.fromEntries(
    [
      "status",
      "scope",
      "message_kind",
      "seq",
      "discussion_id",
      "to",
      "task_id",
      "task_kind",
      "key",
      "sequence_id",
      "branch",
    ].map((k) => [k, z.string().optional()]),
  ),
}).catchall(z.string());

/** Registers `search` and `fetch`. */
export function registerSearchTools(server: ToolRegistrar, t: SearchToolDeps): void {
  registerSearchTool(server, t);
  registerFetchTool(server, t);
}

function registerSearchTool(server: ToolRegistrar, t: SearchToolDeps): void {
  const kinds = [...t.sources.keys()];
  server.registerTool("search", {
    title: "Search everything",
    description:
      `Ranked search over everything kept (kinds below). "exact phrase", prefix*. fetch reads a result by id.`,
    inputSchema: toolArgs({
      query: z.string(),
      kinds: z.array(z.string()).optional().describe(`Only these: ${kinds.join(", ")}`),
      workspace: z.string().optional(),
      project_id: z.string().optional(),
      author: z.string().optional(),
      after: z.string().optional().describe("ISO-8601"),
      before: z.string().optional().describe("ISO-8601"),
      limit: z.number().optional().describe(`1–${t.settings.limitMax} (10)`),
      cursor: z.string().optional(),
    }),
    outputSchema: {
      ...UNTRUSTED_FIELDS,
      results: z.array(resultSchema),
      has_more: z.boolean(),
      next_cursor: nullableString(),
      pending: z.number(),
      indexing: z.string(),
      notes: z.array(z.string()),
    },
    annotations: { title: "Search everything", ...ANNOTATIONS },
  }, async (args) => {
    const answer = await search(t.kv, t.sources, t.settings, t.base, args);
    const notice = untrustedNotice(newNonce(), SEARCH_UNTRUSTED);
    return jsonResult({ untrusted: notice, ...answer });
  });
}

function registerFetchTool(server: ToolRegistrar, t: SearchToolDeps): void {
  server.registerTool("fetch", {
    title: "Fetch a search result",
    description:
      "The whole item behind a search result id; long text is cut with a note on how to read on.",
    inputSchema: toolArgs({
      id: z.string().describe("A search result's id"),
      offset: z.number().optional().describe("Text start"),
    }),
    outputSchema: {
      ...UNTRUSTED_FIELDS,
      id: z.string(),
      title: z.string(),
      text: z.string(),
      url: z.string(),
      metadata: metadataSchema,
    },
    annotations: { title: "Fetch a search result", ...ANNOTATIONS },
  }, async (args) => {
    const start = args.offset ?? 0;
    if (!Number.isInteger(start) || start < 0) {
      throw new AppError("invalid", "offset must be a whole number of characters, 0 or more");
    }
    const { kind, ref, item } = await fetchItem(t.kv, t.sources, args.id);
    const chars = Array.from(item.text);
    const from = Math.min(start, chars.length);
    const metadata: Record<string, string> = { kind, created_at: item.created_at };
    for (const [k, v] of Object.entries(item.meta)) if (v !== undefined) metadata[k] = v;
    if (item.uri !== undefined) metadata.uri = item.uri;
    for (const [k, v] of Object.entries(item.facts ?? {})) metadata[k] = v;
    // Every metadata value but the server's own came from a session (names, keys, branches).
    const own = new Set(["kind", "created_at", "uri", "truncated"]);
    const fields = [
      "title",
      "text",
      ...Object.keys(metadata).filter((k) => !own.has(k))
        .map((k) => `metadata.${k}`),
    ];
    const data = {
      untrusted: untrustedNotice(newNonce(), fields),
      id: itemId(kind, ref),
      title: item.title,
      text: "",
      url: t.base + itemPath(kind, ref),
      metadata,
    };
    const room = t.settings.resultMaxTokens - 800 - estimateTokens(JSON.stringify(data)) * 2;
    let used = 0;
    let to = from;
    while (to < chars.length) {
      used += estimateTokens(chars[to]) + (chars[to] === '"' || chars[to] === "\n" ? 1 : 0);
      if (used > room) break;
      to++;
    }
    data.text = chars.slice(from, to).join("");
    if (to < chars.length) {
      metadata.truncated =
        `Text cut at character ${to} of ${chars.length} to stay within RESULT_MAX_TOKENS (${t.settings.resultMaxTokens}): call fetch with this id and offset ${to} to read on.`;
      data.text += `\n\n[${metadata.truncated}]`;
    }
    return jsonResult(data);
  });
}
