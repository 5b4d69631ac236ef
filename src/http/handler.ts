/** The HTTP front: health, the loopback guard, token auth, the route table and error statuses. */

import { closedReason, type Config } from "../config.ts";
import { AppError } from "../kit/errors.ts";
import { json, plain, type Route, type RouteContext } from "../kit/web.ts";
import { createMcpApp, type McpDeps, type Toolset } from "../mcp/server.ts";
import { createOAuthServer } from "../oauth/server.ts";
import { defaultSelection, parseToolsetNames } from "../toolsets.ts";
import { isLoopback, rebindingGuard } from "./auth.ts";
import { authenticate, keyringOf, resolveCaller } from "./identity.ts";
import { authInfoOf } from "../tools/caller.ts";
import { withOAuth } from "./oauth_gate.ts";
import { RouteTable } from "./router.ts";
import { SseSessions } from "./sse.ts";
import { bodyBytes, LARGE_BODY_BYTES, WriteAdmission } from "./admission.ts";
import { McpEndpoint } from "./mcp_endpoint.ts";
import { errorResponse } from "./status.ts";

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
/** Routes spoken to by MCP clients, whose errors are JSON-RPC messages. */
const MCP_PATHS = ["mcp", "sse", "messages"];

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
  const oauth = oauthServerOf(deps);
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
  const routes = new RouteTable(all.filter((r) => !r.public));
  const publicRoutes = new RouteTable(all.filter((r) => r.public));

  const handler = async (req: Request, info?: Deno.ServeHandlerInfo): Promise<Response> => {
    if (closed !== undefined) return plain(503, `handoff-mcp is closed: ${closed}`);
    const url = new URL(req.url);
    if (url.pathname === "/healthz" && (req.method === "GET" || req.method === "HEAD")) {
      return plain(200, "ok");
    }
    const refusal = rebindingRefusal?.(req);
    if (refusal) return refusal;
    const open = publicRoutes.match(url.pathname.slice(1));
    if (open) return await admitted(req, open, { url, base: "/", caller: deps.caller, info });
    if (oauth) {
      const answered = await oauth.handle(req, info);
      if (answered) return answered;
    }
    let auth = authenticate(req, url, keyring);
    if (oauth) {
      const gated = await withOAuth(auth, req, url, oauth, MCP_PATHS);
      if (gated instanceof Response) return gated;
      auth = gated;
    }
    if (!auth) return NOT_FOUND();
    const match = routes.match(auth.path);
    if (!match) return NOT_FOUND();
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

/** The OAuth server, when `OAUTH=on` and a master token exists to fall back on. */
function oauthServerOf(deps: HandlerDeps) {
  const { config } = deps;
  if (!config.oauth.enabled || deps.token === undefined) return undefined;
  return createOAuthServer({
    kv: deps.kv,
    settings: config.oauth,
    authToken: deps.token,
    now: deps.now,
  });
}

/** The MCP endpoints: `/mcp` (both eras), and legacy SSE with its message endpoint. */
function mcpRoutes(
  enabled: readonly Toolset[],
  streamable: McpEndpoint,
  sse: SseSessions,
): Route[] {
  return [
    {
      path: "mcp",
      methods: {
        POST: (req, { url, caller }) =>
          streamable.post(req, toolsetsOf(url, enabled), authInfoOf(caller)),
      },
    },
    {
      path: "sse",
      methods: {
        GET: (_req, { url, base }) =>
          sse.open(`${base}messages`, toolsetsOf(url, enabled), url.searchParams),
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
    return busyResponse(match.route, error);
  }
  // `run` answers every error itself, so the release always reaches `releasedWith`.
  return releasedWith(await run(), release);
}

/** The busy refusal: JSON-RPC on the MCP endpoints (no id: the body was never read). */
function busyResponse(route: Route, error: unknown): Response {
  if (!MCP_PATHS.includes(route.path)) {
    const refused = errorResponse(error);
    refused.headers.set("retry-after", "1");
    return refused;
  }
  const message = error instanceof Error ? error.message : String(error);
  const body = { jsonrpc: "2.0", id: null, error: { code: -32000, message } };
  return json(503, body, { "retry-after": "1" });
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

/** The enabled toolsets a client narrowed to with `?toolsets=a,b`; it can never widen them. */
function toolsetsOf(url: URL, enabled: readonly Toolset[]): readonly Toolset[] {
  if (url.search === "") return defaultSelection(enabled);
  const asked = url.searchParams.get("toolsets");
  if (asked === null) return defaultSelection(enabled);
  let names: string[];
  try {
    names = parseToolsetNames(asked, "The toolsets query parameter");
  } catch (error) {
    throw new AppError("invalid", (error as Error).message);
  }
  const on = enabled.map((t) => t.name);
  const off = names.filter((name) => !on.includes(name));
  if (off.length > 0) {
    throw new AppError(
      "invalid",
      `Toolset ${off.join(", ")} is not enabled on this server; enabled: ${on.join(", ")}`,
    );
  }
  return enabled.filter((t) => names.includes(t.name));
}
