/**
 * The memory toolset's nine tools, with the official knowledge-graph server's names, arguments
 * and result shapes (`@modelcontextprotocol/server-memory`), so a client set up for it works
 * unchanged. Reads add `cursor`, `has_more` and `next_cursor` (results keep the size budget) and
 * the `untrusted` notice (names and observations were written by other sessions).
 */

import { z } from "zod";
import { newNonce, wrapUntrusted } from "../kit/untrusted.ts";
import { READ_ONLY, writes } from "../tools/annotations.ts";
import { callerOf } from "../tools/caller.ts";
import type { ToolRegistrar } from "../tools/registry.ts";
import { structuredResult, UNTRUSTED_FIELDS, untrustedResult } from "../tools/results.ts";
import type { McpDeps } from "../tools/toolset.ts";
import {
  decodeCursor,
  digest,
  encodeCursor,
  fromPosition,
  GRAPH_UNTRUSTED_PATHS,
  type GraphPage,
  isIndex,
  takePage,
} from "./page.ts";
import { graphOf, type MemorySettings } from "./settings.ts";
import { GraphCopies } from "./store_snapshot.ts";
import { isGraphPosition, openGraph, searchGraph, walkGraph } from "./store_read.ts";
import {
  addObservations,
  createEntities,
  createRelations,
  deleteEntities,
  deleteObservations,
  deleteRelations,
  type MemoryCtx,
} from "./store_write.ts";
import { checkItems, checkName } from "./validate.ts";
import { AppError } from "../kit/errors.ts";
import { registerMemoryResources } from "./resources.ts";

/** What the model is told about this toolset at initialize. */
export const MEMORY_INSTRUCTIONS =
  "memory is a knowledge graph kept across chats: entities (name, type, observations) and relations between them. search_nodes or open_nodes before read_graph; reads page with cursor.";

const entity = z.object({
  name: z.string().describe("The name of the entity"),
  entityType: z.string().describe("The type of the entity"),
  observations: z.array(z.string()).describe("Observation contents about the entity"),
});
const relation = z.object({
  from: z.string().describe("The name of the entity where the relation starts"),
  to: z.string().describe("The name of the entity where the relation ends"),
  relationType: z.string().describe("The type of the relation, in active voice"),
});
const DONE = { success: z.boolean(), message: z.string() };
const PAGE = {
  entities: z.array(entity),
  relations: z.array(relation),
  has_more: z.boolean().describe("More of this read is left: call again with cursor"),
  next_cursor: z.string().optional().describe("Pass as cursor to read on"),
  notes: z.array(z.string()).optional().describe("What the text says beside the data"),
  ...UNTRUSTED_FIELDS,
};
const CURSOR = z.string().max(4096).optional().describe("From next_cursor");

/** A page as a result: the official fields, read-on hints in both views, marked untrusted. */
function pageResult(page: GraphPage, tool: string) {
  const notes: string[] = [];
  if (page.has_more) {
    notes.push(
      `More to read: call ${tool} again with the same arguments and cursor "${page.next_cursor}".`,
    );
  }
  if (page.cut.length > 0) {
    // Counted, not named: a name is stored text, and the notes stand outside the fence.
    const n = page.cut.length;
    notes.push(
      `Observations cut to fit RESULT_MAX_TOKENS for ${n} ${
        n === 1 ? "entity" : "entities"
      }: the last observation of each says how many are not shown.`,
    );
  }
  const graph = { entities: page.entities, relations: page.relations };
  const nonce = newNonce();
  const text = [
    wrapUntrusted(JSON.stringify(graph, null, 2), nonce, "the sessions writing this graph"),
    ...notes,
  ]
    .join("\n");
  const data = {
    ...graph,
    has_more: page.has_more,
    ...(page.next_cursor ? { next_cursor: page.next_cursor } : {}),
    ...(notes.length ? { notes } : {}),
  };
  return untrustedResult(text, data, { nonce, fields: GRAPH_UNTRUSTED_PATHS });
}

/** A write's result as upstream gives it: the JSON text, and the same data structured. */
function jsonResult<T extends Record<string, unknown>>(data: T, shown: unknown) {
  return structuredResult(JSON.stringify(shown, null, 2), data);
}

/** A delete's result as upstream gives it. */
function doneResult(message: string) {
  return structuredResult(message, { success: true, message });
}

/** Registers the nine memory tools and the graph resources. */
export function registerMemoryTools(
  server: ToolRegistrar,
  deps: McpDeps,
  settings: MemorySettings,
): void {
  const copies = new GraphCopies(settings.cacheBytes);
  const ctx: MemoryCtx = { kv: deps.kv, limits: settings.limits, notices: deps.notices, copies };
  const budget = deps.config.resultMaxTokens;
  const graphIn = (call: unknown) => graphOf(call, settings);
  const changes = { destructive: false, idempotent: false };
  const removes = { destructive: true, idempotent: true };

  server.registerTool("create_entities", {
    title: "Create Entities",
    description:
      "Create new entities in the knowledge graph; names that exist are skipped. Returns the new ones.",
    inputSchema: { entities: z.array(entity) },
    outputSchema: { entities: z.array(entity) },
    annotations: writes(changes),
  }, async ({ entities }, call) => {
    const created = await createEntities(ctx, graphIn(call), entities, callerOf(call, deps));
    return jsonResult({ entities: created }, created);
  });

  server.registerTool("create_relations", {
    title: "Create Relations",
    description:
      "Create relations between entities (active voice); existing ones are skipped. Returns the new ones.",
    inputSchema: { relations: z.array(relation) },
    outputSchema: { relations: z.array(relation) },
    annotations: writes(changes),
  }, async ({ relations }, call) => {
    const created = await createRelations(ctx, graphIn(call), relations, callerOf(call, deps));
    return jsonResult({ relations: created }, created);
  });

  server.registerTool("add_observations", {
    title: "Add Observations",
    description:
      "Add observations to existing entities; ones already present are skipped. A missing entity fails the whole call.",
    inputSchema: {
      observations: z.array(z.object({
        entityName: z.string().describe("The entity to add to"),
        contents: z.array(z.string()).describe("Observations to add"),
      })),
    },
    outputSchema: {
      results: z.array(
        z.object({ entityName: z.string(), addedObservations: z.array(z.string()) }),
      ),
    },
    annotations: writes(changes),
  }, async ({ observations }, call) => {
    const results = await addObservations(ctx, graphIn(call), observations);
    return jsonResult({ results }, results);
  });

  server.registerTool("delete_entities", {
    title: "Delete Entities",
    description: "Delete entities and every relation from or to them.",
    inputSchema: { entityNames: z.array(z.string()).describe("Names of the entities to delete") },
    outputSchema: DONE,
    annotations: writes(removes),
  }, async ({ entityNames }, call) => {
    await deleteEntities(ctx, graphIn(call), entityNames);
    return doneResult("Entities deleted successfully");
  });

  server.registerTool("delete_observations", {
    title: "Delete Observations",
    description: "Delete specific observations from entities; missing entities are ignored.",
    inputSchema: {
      deletions: z.array(z.object({
        entityName: z.string().describe("The entity holding them"),
        observations: z.array(z.string()).describe("Observations to delete"),
      })),
    },
    outputSchema: DONE,
    annotations: writes(removes),
  }, async ({ deletions }, call) => {
    await deleteObservations(ctx, graphIn(call), deletions);
    return doneResult("Observations deleted successfully");
  });

  server.registerTool("delete_relations", {
    title: "Delete Relations",
    description: "Delete relations from the knowledge graph.",
    inputSchema: { relations: z.array(relation).describe("Relations to delete") },
    outputSchema: DONE,
    annotations: writes(removes),
  }, async ({ relations }, call) => {
    await deleteRelations(ctx, graphIn(call), relations);
    return doneResult("Relations deleted successfully");
  });

  server.registerTool("read_graph", {
    title: "Read Graph",
    description:
      "Read the whole knowledge graph: entities by name, then relations, a page at a time.",
    inputSchema: { cursor: CURSOR },
    outputSchema: PAGE,
    annotations: READ_ONLY,
  }, async ({ cursor }, call) => {
    const graph = graphIn(call);
    const from = cursor === undefined
      ? { phase: "e" as const }
      : decodeCursor(cursor, "read_graph", graph, "", isGraphPosition);
    const page = await takePage(
      walkGraph(ctx, graph, from),
      budget,
      (at) => encodeCursor({ tool: "read_graph", graph, args: "", at }),
    );
    return pageResult(page, "read_graph");
  });

  server.registerTool("search_nodes", {
    title: "Search Nodes",
    description:
      "Find entities whose name, type or an observation contains the query (any case), best match first, with relations touching them.",
    inputSchema: {
      query: z.string().describe("Text to find in names, types and observations"),
      cursor: CURSOR,
    },
    outputSchema: PAGE,
    annotations: READ_ONLY,
  }, async ({ query, cursor }, call) => {
    const graph = graphIn(call);
    if (!query.isWellFormed() || [...query].length > settings.limits.queryMax) {
      throw new AppError(
        "invalid",
        `query must be well-formed text of at most ${settings.limits.queryMax} characters (MEMORY_QUERY_MAX)`,
      );
    }
    const args = digest(query);
    const from = cursor === undefined
      ? 0
      : decodeCursor(cursor, "search_nodes", graph, args, isIndex);
    const all = await searchGraph(ctx, copies, graph, query);
    const page = await takePage(
      fromPosition(all, from),
      budget,
      (at) => encodeCursor({ tool: "search_nodes", graph, args, at }),
    );
    return pageResult(page, "search_nodes");
  });

  server.registerTool("open_nodes", {
    title: "Open Nodes",
    description: "Read the named entities and the relations touching them.",
    inputSchema: {
      names: z.array(z.string()).describe("Names of the entities to read"),
      cursor: CURSOR,
    },
    outputSchema: PAGE,
    annotations: READ_ONLY,
  }, async ({ names, cursor }, call) => {
    const graph = graphIn(call);
    checkItems(names, "names", settings.limits);
    names.forEach((n, i) => checkName(n, `names[${i}]`, settings.limits));
    const args = digest(JSON.stringify(names));
    const from = cursor === undefined
      ? 0
      : decodeCursor(cursor, "open_nodes", graph, args, isIndex);
    const all = await openGraph(ctx, graph, names);
    const page = await takePage(
      fromPosition(all, from),
      budget,
      (at) => encodeCursor({ tool: "open_nodes", graph, args, at }),
    );
    return pageResult(page, "open_nodes");
  });

  registerMemoryResources(server, ctx, settings, budget);
}
