/** The HTTP front: health, the loopback guard, token auth, the route table and error statuses. */

import { closedReason, type Config, parseToolsets, type ToolsetName } from "../config.ts";
import { createMcpServer, type McpDeps } from "../mcp/server.ts";
import { WebStandardStreamableHTTPServerTransport } from "../mcp/sdk.ts";
import { StoreError, type StoreErrorKind } from "../store/kv.ts";
import { handoffApiRoutes } from "./api_handoff.ts";
import { bearerToken, isLoopback, rebindingRefusal, tokenMatches } from "./auth.ts";
import { BodyError, json, onBodyDone, plain } from "./body.ts";
import { matchRoute, type Route } from "./router.ts";
import { SseSessions } from "./sse.ts";

/** What the handler needs: KV, configuration and the resolved token. */
export interface HandlerDeps extends McpDeps {
  config: Config;
  /** The secret every route but `/healthz` requires; `undefined` closes the server. */
  token: string | undefined;
  /** Routes of features beyond MCP (JSON APIs, views), after the token. */
  routes?: Route[];
}

/** A request handler plus a way to end its long-lived SSE sessions. */
export interface Handler {
  (req: Request): Promise<Response>;
  close(): Promise<void>;
}

/** The one map from store failures to HTTP statuses. */
const STATUS_OF: Record<StoreErrorKind, number> = {
  invalid: 400,
  not_found: 404,
  too_large: 413,
  full: 409,
  busy: 503,
};

const NOT_FOUND = () => plain(404, "Not found");
/** Routes spoken to by MCP clients, whose errors are JSON-RPC messages. */
const MCP_PATHS = ["mcp", "sse", "messages"];

/** Creates the request handler of the whole server. */
export function createHandler(deps: HandlerDeps): Handler {
  const { config } = deps;
  const closed = closedReason(config) ??
    (deps.token === undefined ? "No AUTH_TOKEN is configured" : undefined);
  // On Deno Deploy the platform terminates HTTP for its own host names; HOST does not apply.
  const guardRebinding = !config.onDeploy && isLoopback(config.host);
  const sse = new SseSessions({
    keepAliveMs: config.sseKeepAliveMs,
    maxRequestBytes: config.maxRequestBytes,
    connect: (transport, toolsets) => createMcpServer(deps, toolsets).connect(transport),
  });

  const routes: Route[] = [
    {
      path: "mcp",
      methods: { POST: (req, { url }) => streamable(deps, req, toolsetsOf(url, config)) },
    },
    {
      path: "sse",
      methods: {
        GET: (_req, { url, base }) => sse.open(`${base}messages`, toolsetsOf(url, config)),
      },
    },
    {
      path: "messages",
      methods: { POST: (req, { url }) => sse.post(req, url.searchParams.get("sessionId")) },
    },
    ...(config.toolsets.includes("handoff") ? handoffApiRoutes(deps) : []),
    ...(deps.routes ?? []),
  ];

  const handler = async (req: Request): Promise<Response> => {
    if (closed !== undefined) return plain(503, `handoff-mcp is closed: ${closed}`);
    const url = new URL(req.url);
    if (url.pathname === "/healthz" && (req.method === "GET" || req.method === "HEAD")) {
      return plain(200, "ok");
    }
    if (guardRebinding) {
      const refusal = rebindingRefusal(req, config.allowedHosts);
      if (refusal) return plain(403, refusal);
    }
    const auth = await authenticate(req, url, deps.token!);
    if (!auth) return NOT_FOUND();
    const match = matchRoute(routes, auth.path);
    if (!match) return NOT_FOUND();
    const handle = match.route.methods[req.method];
    if (!handle) {
      const allow = Object.keys(match.route.methods).join(", ");
      const message = `Method ${req.method} not allowed here; use ${allow}`;
      // MCP endpoints answer in JSON-RPC; the JSON APIs in their own { error } shape.
      const body = MCP_PATHS.includes(match.route.path)
        ? { jsonrpc: "2.0", id: null, error: { code: -32000, message } }
        : { error: message };
      return json(405, body, { allow });
    }
    try {
      return await handle(req, { url, base: auth.base, params: match.params });
    } catch (error) {
      return errorResponse(error);
    }
  };
  return Object.assign(handler, { close: () => sse.closeAll() });
}

/** Accepts the token as the first path segment, or as a bearer header on token-less paths. */
async function authenticate(
  req: Request,
  url: URL,
  token: string,
): Promise<{ path: string; base: string } | undefined> {
  const path = url.pathname.slice(1);
  const slash = path.indexOf("/");
  if (slash > 0 && await tokenMatches(path.slice(0, slash), token)) {
    return { path: path.slice(slash + 1), base: `/${path.slice(0, slash + 1)}` };
  }
  if (await tokenMatches(bearerToken(req), token)) return { path, base: "/" };
  return undefined;
}

function toolsetsOf(url: URL, config: Config): ToolsetName[] {
  const asked = url.searchParams.get("toolsets");
  if (asked === null) return config.toolsets;
  let names: ToolsetName[];
  try {
    names = parseToolsets(asked, "The toolsets query parameter");
  } catch (error) {
    throw new StoreError("invalid", (error as Error).message);
  }
  const off = names.filter((name) => !config.toolsets.includes(name));
  if (off.length > 0) {
    throw new StoreError(
      "invalid",
      `Toolset ${off.join(", ")} is not enabled on this server; enabled: ${
        config.toolsets.join(", ")
      }`,
    );
  }
  return names;
}

/** Stateless Streamable HTTP: a fresh server and transport for every request; state is in KV. */
async function streamable(
  deps: McpDeps,
  req: Request,
  toolsets: ToolsetName[],
): Promise<Response> {
  const server = createMcpServer(deps, toolsets);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    maxRequestBodySize: deps.config.maxRequestBytes,
  });
  await server.connect(transport);
  try {
    const res = await transport.handleRequest(req);
    return onBodyDone(res, () => void server.close());
  } catch (error) {
    await server.close();
    throw error;
  }
}

function errorResponse(error: unknown): Response {
  if (error instanceof StoreError) {
    return json(STATUS_OF[error.kind], { error: error.message, kind: error.kind });
  }
  if (error instanceof BodyError) return json(error.status, { error: error.message });
  console.error(`handoff-mcp: unexpected error: ${error instanceof Error ? error.stack : error}`);
  return json(500, { error: "Internal server error" });
}
