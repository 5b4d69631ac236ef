/**
 * The handoff toolset's JSON HTTP API for scripts, behind the same token as MCP. It calls the
 * same store functions as the tools and answers with the same JSON shapes as their
 * `structuredContent`; store errors become statuses through the handler's one map.
 */

import { z } from "zod";
import type { HandoffSettings } from "./settings.ts";
import { mergeShape, saveShape } from "./schemas.ts";
import { mergedFacts, mergeInputOf, savedFacts, saveInputOf } from "./inputs.ts";
import { loadedJson, mergedJson, savedJson, statsJson, summaryJson } from "./render.ts";
import { audited, type AuditFacts } from "./audit.ts";
import { deleteHandoff } from "./store_delete.ts";
import { listHandoffs, loadHandoff } from "./store_read.ts";
import { saveHandoff } from "./store_save.ts";
import { handoffStats } from "./store_stats.ts";
import { utf8Bytes } from "../kit/text.ts";
import { searchHandoffs } from "./store_search.ts";
import { mergeHandoffs } from "./store_merge.ts";
import { lastMessages } from "./store_messages.ts";
import { invalid } from "../kit/errors.ts";
import { json, readJson, type Route } from "../kit/web.ts";

/** What the API needs. */
export interface HandoffApiDeps extends HandoffSettings {
  kv: Deno.Kv;
  /** Largest request body, in bytes (the server's `MAX_REQUEST_BYTES`). */
  maxRequestBytes: number;
}

/** Query parameters that turn `GET api/handoffs` from a list into a search. */
export const SEARCH_PARAMS = [
  "tags",
  "tags_all",
  "query",
  "from_project",
  "from_ai",
  "status",
  "created_after",
  "created_before",
] as const;

const DEFAULT_PAGE = 20;

/** What every route of the API uses. */
interface ApiContext {
  kv: Deno.Kv;
  limits: HandoffApiDeps["limits"];
  maxRequestBytes: number;
  /** Runs a store call, logging it (as `via: "http"`) when an audit log is configured. */
  audit<T>(
    facts: Omit<AuditFacts, "via">,
    work: () => Promise<T>,
    after?: (v: T) => Partial<AuditFacts>,
  ): Promise<T>;
}

/** The routes of the handoff API, relative to `/<token>/`. */
export function handoffApiRoutes(deps: HandoffApiDeps): Route[] {
  const { kv, limits, auditLog, maxRequestBytes } = deps;
  const api: ApiContext = {
    kv,
    limits,
    maxRequestBytes,
    audit: (facts, work, after) => audited(auditLog, { ...facts, via: "http" }, work, after),
  };
  return [listRoute(api), mergeRoute(api), oneRoute(api), statsRoute(api)];
}

/** `api/handoffs`: GET lists (or, with search parameters, searches); POST saves. */
function listRoute(api: ApiContext): Route {
  const { kv, limits, audit, maxRequestBytes } = api;
  const saveBody = z.object(saveShape(limits)).strict();
  return {
    path: "api/handoffs",
    methods: {
      GET: async (_req, { url }) => {
        const q = url.searchParams;
        const limit = intParam(q, "limit", 1, limits.listPageMax) ?? DEFAULT_PAGE;
        if (SEARCH_PARAMS.some((name) => q.has(name))) {
          const result = await audit(
            { tool: "handoff_search" },
            () =>
              searchHandoffs(kv, limits, {
                tags: listParam(q, "tags"),
                tagsAll: listParam(q, "tags_all"),
                query: q.get("query") ?? undefined,
                fromProject: q.get("from_project") ?? undefined,
                fromAi: q.get("from_ai") ?? undefined,
                status: q.get("status") ?? undefined,
                createdAfter: q.get("created_after") ?? undefined,
                createdBefore: q.get("created_before") ?? undefined,
                limit,
              }),
            (r) => ({ count: r.items.length }),
          );
          return json(200, {
            handoffs: result.items.map(summaryJson),
            has_more: result.hasMore,
            scanned: result.scanned,
          });
        }
        const page = await audit(
          { tool: "handoff_list" },
          () => listHandoffs(kv, { limit, cursor: q.get("cursor") ?? undefined }),
          (p) => ({ count: p.items.length }),
        );
        return json(200, {
          handoffs: page.items.map(summaryJson),
          has_more: page.hasMore,
          next_cursor: page.nextCursor,
        });
      },
      POST: async (req, { base }) => {
        const body = parse(saveBody, await readJsonBody(req, maxRequestBytes));
        const result = await audit(
          {
            tool: "handoff_save",
            key: body.key ?? null,
            bytes_in: utf8Bytes(body.conversation),
          },
          () => saveHandoff(kv, limits, saveInputOf(body)),
          savedFacts,
        );
        return json(result.overwritten ? 200 : 201, savedJson(result), {
          location: `${base}api/handoffs/${result.handoff.key}`,
        });
      },
    },
  };
}

/** `api/handoffs/merge`: POST merges. */
function mergeRoute(api: ApiContext): Route {
  const { kv, limits, audit, maxRequestBytes } = api;
  const mergeBody = z.object(mergeShape(limits)).strict();
  return {
    path: "api/handoffs/merge",
    methods: {
      POST: async (req, { base }) => {
        const body = parse(mergeBody, await readJsonBody(req, maxRequestBytes));
        const result = await audit(
          { tool: "handoff_merge", key: body.new_key ?? null, keys: body.keys },
          () => mergeHandoffs(kv, limits, mergeInputOf(body)),
          mergedFacts,
        );
        return json(201, mergedJson(result), {
          location: `${base}api/handoffs/${result.handoff.key}`,
        });
      },
    },
  };
}

/** `api/handoffs/:key`: GET loads one handoff, DELETE deletes it. */
function oneRoute(api: ApiContext): Route {
  const { kv, limits, audit } = api;
  return {
    path: "api/handoffs/:key",
    methods: {
      GET: async (_req, { url, params }) => {
        const max = intParam(url.searchParams, "max_messages", 1, 100_000);
        const loaded = await audit(
          { tool: "handoff_load", key: params.key },
          () => loadHandoff(kv, limits, params.key),
          (l) => ({ bytes: l.handoff.bytes }),
        );
        const tail = lastMessages(loaded.conversation, max ?? Number.MAX_SAFE_INTEGER);
        return json(200, loadedJson(loaded, tail));
      },
      DELETE: async (_req, { params }) => {
        const gone = await audit(
          { tool: "handoff_clear", key: params.key },
          () => deleteHandoff(kv, limits, params.key),
          (h) => ({ bytes: h.bytes }),
        );
        return json(200, { deleted: summaryJson(gone) });
      },
    },
  };
}

/** `api/stats`: GET the store's counts, sizes and limits. */
function statsRoute(api: ApiContext): Route {
  const { kv, limits, audit } = api;
  return {
    path: "api/stats",
    methods: {
      GET: async () => {
        const stats = await audit(
          { tool: "handoff_stats" },
          () => handoffStats(kv, limits),
          (s) => ({ count: s.count }),
        );
        return json(200, statsJson(stats));
      },
    },
  };
}

/** Reads a JSON body; refuses other content types before reading. */
async function readJsonBody(req: Request, maxBytes: number): Promise<unknown> {
  const type = req.headers.get("content-type") ?? "";
  if (!type.toLowerCase().startsWith("application/json")) {
    invalid(`Content-Type must be application/json, got "${type || "(none)"}"`);
  }
  return await readJson(req, maxBytes);
}

/** Validates a body against a schema; the error names every wrong field. */
function parse<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const result = schema.safeParse(body);
  if (!result.success) {
    const problems = result.error.issues.map((issue) =>
      `${issue.path.length > 0 ? issue.path.join(".") : "body"}: ${issue.message}`
    );
    invalid(`Invalid request body: ${problems.join("; ")}`);
  }
  return result.data;
}

function intParam(q: URLSearchParams, name: string, min: number, max: number): number | undefined {
  const raw = q.get(name);
  if (raw === null || raw === "") return undefined;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max) {
    invalid(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

/** A list parameter given as `a,b` or repeated (`tags=a&tags=b`). */
function listParam(q: URLSearchParams, name: string): string[] | undefined {
  const values = q.getAll(name).flatMap((v) => v.split(",")).map((v) => v.trim())
    .filter((v) => v !== "");
  return values.length > 0 ? values : undefined;
}
