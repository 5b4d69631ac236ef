/**
 * The graph as a resource, as upstream has it (`memory://knowledge-graph`, the connector's
 * graph), and one per named graph (`memory://knowledge-graph/<graph>`), each with subscribe and
 * 2026 listen across processes: every write bumps its graph's topic in its own atomic.
 */

import { newNonce, untrustedNotice } from "../kit/untrusted.ts";
import type { UriTopics } from "../kit/notices.ts";
import { ResourceTemplate } from "../tools/sdk.ts";
import type { ToolRegistrar } from "../tools/registry.ts";
import { AppError } from "../kit/errors.ts";
import { listAll } from "../kit/reads.ts";
import { encodeCursor, GRAPH_UNTRUSTED_PATHS, takePage } from "./page.ts";
import type { MemorySettings } from "./settings.ts";
import { checkGraphName, GRAPHS_PREFIX } from "./store_keys.ts";
import { walkGraph } from "./store_read.ts";
import { graphTopic, type MemoryCtx } from "./store_write.ts";
import { graphOf, graphOfQuery } from "./settings.ts";

/** The upstream resource: the connector's own graph. */
export const GRAPH_URI = "memory://knowledge-graph";
/** One named graph. */
export const NAMED_GRAPH_TEMPLATE = "memory://knowledge-graph/{graph}";
const NAMED = /^memory:\/\/knowledge-graph\/([^/?#]+)$/;

/** Which topic tells of a change to a graph URI (the plain one is `MEMORY_GRAPH`'s graph). */
export function memoryUriTopics(settings: MemorySettings): UriTopics {
  return {
    templates: [GRAPH_URI, NAMED_GRAPH_TEMPLATE],
    topicOf(uri: string, _caller, connector) {
      // The plain URI is the connector's graph, as reading it is.
      if (uri === GRAPH_URI) return graphTopic(graphOfQuery(connector, settings));
      const m = NAMED.exec(uri);
      return m ? graphTopic(checkGraphName(decodedGraph(m[1]), "The graph in the URI")) : undefined;
    },
  };
}

/** Registers both resources and their notices. */
export function registerMemoryResources(
  server: ToolRegistrar,
  ctx: MemoryCtx,
  settings: MemorySettings,
  budget: number,
): void {
  server.resourceNotices(memoryUriTopics(settings));
  const read = async (uri: URL, graph: string) => {
    const page = await takePage(
      walkGraph(ctx, graph, { phase: "e" }),
      budget,
      (at) => encodeCursor({ tool: "read_graph", graph, args: "", at }),
    );
    const notice = untrustedNotice(newNonce(), GRAPH_UNTRUSTED_PATHS);
    const data = {
      untrusted: notice,
      entities: page.entities,
      relations: page.relations,
      has_more: page.has_more,
      ...(page.has_more
        ? { next_cursor: page.next_cursor, notes: ["More to read: read_graph with this cursor."] }
        : {}),
    };
    return {
      contents: [{
        uri: uri.href,
        mimeType: "application/json",
        text: JSON.stringify(data, null, 2),
      }],
    };
  };
  server.registerResource("knowledge-graph", GRAPH_URI, {
    title: "Knowledge Graph",
    description: "The knowledge graph (first page; read_graph reads on)",
    mimeType: "application/json",
  }, (uri, call) => read(uri, graphOf(call, settings)));
  server.registerResource(
    "knowledge-graph-named",
    new ResourceTemplate(NAMED_GRAPH_TEMPLATE, {
      list: async () => {
        const graphs = await listAll(ctx.kv, { prefix: GRAPHS_PREFIX }, { limit: 100 });
        return {
          resources: graphs.map((g) => ({
            uri: `memory://knowledge-graph/${String(g.key[1])}`,
            name: `Knowledge graph ${String(g.key[1])}`,
            mimeType: "application/json",
          })),
        };
      },
    }),
    {
      title: "Named knowledge graph",
      description: "One named graph (first page; read_graph with ?graph= reads on)",
      mimeType: "application/json",
    },
    (uri, variables) => read(uri, checkGraphName(decodedGraph(String(variables.graph)), "graph")),
  );
}

/** A URI's graph part, percent-decoded; a part that is not UTF-8 gets a clear error. */
function decodedGraph(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new AppError("invalid", "graph in the URI is not percent-encoded UTF-8");
  }
}
