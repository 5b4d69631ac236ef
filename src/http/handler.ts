/** The HTTP front: health, the loopback guard, token auth, routing and write admission. */

import { closedReason, type Config } from "../config.ts";
import { json, plain, type Route, type RouteContext } from "../kit/web.ts";
import { createMcpApp, type McpApp, type McpDeps, type Toolset } from "../mcp/server.ts";
import { createOAuthServer } from "../oauth/server.ts";
import { selectToolsets } from "../toolsets.ts";
import { isLoopback, rebindingGuard } from "./auth.ts";
import { checkCredentials, keyringOf, resolveCaller } from "./identity.ts";
import { authInfoOf } from "../tools/caller.ts";
import { SseSessions } from "./sse.ts";
import { bodyBytes, LARGE_BODY_BYTES, WriteAdmission } from "./admission.ts";
import { McpEndpoint } from "./mcp_endpoint.ts";
import { errorResponse, refusal } from "./status.ts";

/** What the handler needs: KV, configuration and the resolved token. */
export interface HandlerDeps extends McpDeps {
  config: Config;
  /** The toolsets this server serves, in registration order. */
  toolsets: readonly Toolset[];
  /** The secret every route but `/healthz` requires; `undefined` closes the server. */
  token: string | undefined;
  /** Routes of features beyond MCP (JSON APIs, views), after the token unless `public`. */
  routes?: Route[];
  /** The OAuth server's clock (tests move it to expire codes); `Date.now` by default. */
  now?: () => number;
}

/** A request handler plus a way to end its long-lived SSE sessions. */
export interface Handler {
  (req: Request, info?: Deno.ServeHandlerInfo): Promise<Response>;
  close(): Promise<void>;
}

const NOT_FOUND = () => plain(404, "Not found");

/** Creates the request handler of the whole server. */
export function createHandler(deps: HandlerDeps): Handler {
  const { config } = deps;
  const closed = closedReason(config) ??
    (deps.token === undefined ? "No AUTH_TOKEN is configured" : undefined);
  // On Deno Deploy the platform terminates HTTP for its own host names; HOST does not apply.
  const rebindingRefusal = !config.onDeploy && isLoopback(config.host)
    ? rebindingGuard(config.allowedHosts, config.host)
    : undefined;
  const app = createMcpApp(deps, deps.toolsets);
  // OAuth (`OAUTH=on`) needs a master token to fall back on.
  const oauth = config.oauth.enabled && deps.token !== undefined
    ? createOAuthServer({
      kv: deps.kv,
      settings: config.oauth,
      authToken: deps.token,
      now: deps.now,
    })
    : undefined;
  const { sse, streamable } = mcpTransports(app, config);

  const admission = new WriteAdmission(config.admission);
  const admitted = (req: Request, match: Matched, ctx: Omit<RouteContext, "params">) =>
    dispatch(req, match, ctx, admission, config.maxRequestBytes);

  // Hashed once here; a request costs one hash of what it presents.
  const keyring = keyringOf({ master: deps.token ?? "", named: config.namedTokens });
  const all: Route[] = [
    ...mcpRoutes(deps.toolsets, streamable, sse),
    ...deps.toolsets.flatMap((t) => t.routes?.(deps) ?? []),
    ...(deps.routes ?? []),
  ];
  const routes = routesMatcher(all.filter((r) => !r.public));
  const publicRoutes = routesMatcher(all.filter((r) => r.public));

  const handler = async (req: Request, info?: Deno.ServeHandlerInfo): Promise<Response> => {
    if (closed !== undefined) return plain(503, `handoff-mcp is closed: ${closed}`);
    const url = new URL(req.url);
    if (url.pathname === "/healthz" && (req.method === "GET" || req.method === "HEAD")) {
      return plain(200, "ok");
    }
    const rebound = rebindingRefusal?.(req);
    if (rebound) return rebound;
    const open = publicRoutes(url.pathname.slice(1));
    if (open) return await admitted(req, open, { url, base: "/", caller: deps.caller, info });
    const auth = await checkCredentials(req, url, info, keyring, oauth);
    if (auth instanceof Response) return auth;
    const match = auth && routes(auth.path);
    if (!auth || !match) return NOT_FOUND();
    let caller;
    try {
      caller = resolveCaller(auth.auth, req, config.defaultClientName);
    } catch (error) {
      return errorResponse(error);
    }
    return await admitted(req, match, { url, base: auth.base, caller });
  };

  return Object.assign(handler, {
    close: async () => {
      await sse.closeAll();
      await streamable.close();
    },
  });
}

/** The two ways MCP is served over HTTP: `/mcp` (both eras) and legacy SSE. */
function mcpTransports(app: McpApp, config: Config) {
  const sse = new SseSessions({
    keepAliveMs: config.sseKeepAliveMs,
    maxRequestBytes: config.maxRequestBytes,
    maxSessions: config.sseMaxSessions,
    idleMs: config.sseIdleMs,
    connect: (transport, toolsets) => app.buildServer(toolsets).connect(transport),
  });
  const streamable = new McpEndpoint(app, {
    maxRequestBytes: config.maxRequestBytes,
    keepAliveMs: config.sseKeepAliveMs,
  });
  return { sse, streamable };
}

/** The MCP endpoints: `/mcp` (both eras), and legacy SSE with its message endpoint. */
function mcpRoutes(
  enabled: readonly Toolset[],
  streamable: McpEndpoint,
  sse: SseSessions,
): Route[] {
  // `?toolsets=a,b` narrows what a client sees.
  const toolsetsOf = (url: URL) => selectToolsets(url.searchParams.get("toolsets"), enabled);
  return [
    {
      path: "mcp",
      methods: {
        POST: (req, { url, caller }) => streamable.post(req, toolsetsOf(url), authInfoOf(caller)),
      },
    },
    {
      path: "sse",
      methods: {
        GET: (_req, { url, base }) =>
          sse.open(`${base}messages`, toolsetsOf(url), url.searchParams),
      },
    },
    {
      path: "messages",
      methods: {
        POST: (req, { url, caller }) =>
          sse.post(req, url.searchParams.get("sessionId"), authInfoOf(caller)),
      },
    },
  ];
}

type Matched = { route: Route; params: Record<string, string> };

/** A matcher of `routes`: the first route whose pattern (split once) matches a path after the token. */
function routesMatcher(routes: readonly Route[]): (path: string) => Matched | undefined {
  const patterns = routes.map((route) => ({ route, pattern: route.path.split("/") }));
  return (path) => {
    const parts = path.split("/");
    for (const { route, pattern } of patterns) {
      const params = pattern.length === parts.length ? paramsOf(pattern, parts) : undefined;
      if (params) return { route, params };
    }
    return undefined;
  };
}

/** The decoded `:name` parameters of `parts` on `pattern`; `undefined` when they do not match. */
function paramsOf(pattern: string[], parts: string[]): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    if (!pattern[i].startsWith(":")) {
      if (pattern[i] !== parts[i]) return undefined;
      continue;
    }
    if (parts[i] === "") return undefined;
    try {
      params[pattern[i].slice(1)] = decodeURIComponent(parts[i]);
    } catch {
      return undefined; // Not percent-encoded UTF-8: no route has it.
    }
  }
  return params;
}

/**
 * Runs the matched route's handler for the request's method, or answers 405 naming the allowed.
 * A large body waits for room in the write budget before its handler reads it, and holds it
 * until the answer is made (or, for an event stream, sent).
 */
async function dispatch(
  req: Request,
  match: Matched,
  ctx: Omit<RouteContext, "params">,
  admission: WriteAdmission,
  maxRequestBytes: number,
): Promise<Response> {
  const { path, methods } = match.route;
  const handle = methods[req.method];
  if (!handle) {
    const allow = Object.keys(methods).join(", ");
    const message = `Method ${req.method} not allowed here; use ${allow}`;
    return refusal(path, 405, message, json(405, { error: message }), { allow });
  }
  const run = async (): Promise<Response> => {
    try {
      return await handle(req, { ...ctx, params: match.params });
    } catch (error) {
      return errorResponse(error);
    }
  };
  // A body over the request limit is refused unread at once: it never waits for room.
  const bytes = bodyBytes(req, maxRequestBytes);
  if (bytes < LARGE_BODY_BYTES || bytes > maxRequestBytes) return await run();
  let release: () => void;
  try {
    release = await admission.admit(bytes);
  } catch (error) {
    const message = (error as Error).message;
    return refusal(path, 503, message, errorResponse(error), { "retry-after": "1" });
  }
  // `run` answers every error itself, so the release always reaches `releasedWith`.
  return releasedWith(await run(), release);
}

/** `response`, calling `release` once its body is made: at once, or when a stream ends. */
function releasedWith(response: Response, release: () => void): Response {
  const streaming = response.body !== null &&
    (response.headers.get("content-type") ?? "").includes("text/event-stream");
  if (!streaming) {
    release();
    return response;
  }
  const body = response.body!.pipeThrough(
    new TransformStream({ flush: release, cancel: release }),
  );
  return new Response(body, response);
}
