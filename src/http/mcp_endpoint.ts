/**
 * `/mcp`: both MCP eras on one URL, split by the SDK's own `isLegacyRequest`. A request carrying
 * the 2026-07-28 `_meta` envelope goes to the SDK's `createMcpHandler` (strict, `legacy:
 * 'reject'`), which serves it under that revision (header checks, `resultType`, cache hints,
 * `server/discover`). Anything else (an `initialize`, a 2025 client's calls) is served under 2025
 * rules, statelessly, by the SDK's `WebStandardStreamableHTTPServerTransport` made for the one
 * request, as `createMcpHandler`'s own stateless fallback does, except that the answer is plain
 * JSON unless a request asks for progress (the fallback always opens an event stream). Each
 * request gets a server of its own holding only what it needs (`McpApp.buildServer`).
 *
 * A request whose `MCP-Protocol-Version` header names 2026-07-28 goes to the SDK unread: its
 * `Mcp-Method` / `Mcp-Name` headers (which the SDK checks against the body) say what its server
 * needs. Any other POST is read once here under `MAX_REQUEST_BYTES` (our error names the setting)
 * and handed to the SDK parsed, which also tells the factory what it calls; a batch claiming 2026
 * by its envelope alone is refused (that revision has none; the SDK refuses one with the header).
 */

import type { McpApp, RequestNeeds, Toolset } from "../mcp/server.ts";
import {
  type AuthInfo,
  createMcpHandler,
  isLegacyRequest,
  type McpHttpHandler,
  WebStandardStreamableHTTPServerTransport,
} from "../mcp/sdk.ts";
import { BATCH_MAX, isJson, readRpcBody, rpcError } from "./body.ts";
import { isCancel, isListen, type ListenOptions, ListenStreams } from "./listen_streams.ts";

/**
 * The 2026-07-28 methods whose body is read here: a listen stream (`listen_streams.ts` serves
 * it) and a cancellation (which may end one).
 */
const READ_HERE = new Set(["subscriptions/listen", "notifications/cancelled"]);

/** The protocol-version key of the 2026-07-28 per-request `_meta` envelope. */
const VERSION_KEY = "io.modelcontextprotocol/protocolVersion";

/** The `/mcp` endpoint of one process: one SDK handler per toolset choice, built on first use. */
export class McpEndpoint {
  readonly #app: McpApp;
  readonly #maxBytes: number;
  readonly #handlers = new Map<string, McpHttpHandler>();
  /** Each request's parsed body, for the factory (the SDK hands it the same `Request`). */
  readonly #bodies = new WeakMap<Request, unknown>();
  readonly #listens: ListenStreams;

  constructor(app: McpApp, options: ListenOptions) {
    this.#app = app;
    this.#maxBytes = options.maxRequestBytes;
    this.#listens = new ListenStreams(app, options);
  }

  /** How many 2026 `subscriptions/listen` streams are open. */
  get listening(): number {
    return this.#listens.size;
  }

  /** Answers one POST to `/mcp` for a client that chose `toolsets`. */
  async post(req: Request, toolsets: readonly Toolset[], authInfo?: AuthInfo): Promise<Response> {
    if (!isJson(req.headers.get("content-type"))) {
      return rpcError(415, -32000, "Unsupported Media Type: Content-Type must be application/json");
    }
    // A 2026-07-28 request names its method (and tool) in headers the SDK checks against the
    // body: it goes to the SDK unread, and its server is chosen by those headers.
    const modernHeader = isModernHeader(req.headers.get("mcp-protocol-version"));
    const method = req.headers.get("mcp-method");
    if (modernHeader && method !== null && !READ_HERE.has(method)) {
      return await this.#handlerFor(toolsets).fetch(req, { authInfo });
    }
    const body = await readRpcBody(req, this.#maxBytes);
    if (body instanceof Response) return body;
    const parsed = body.parsed;
    if (Array.isArray(parsed) && isModern(req, parsed)) {
      return rpcError(
        400,
        -32600,
        "Invalid Request: protocol 2026-07-28 has no batches; send one JSON-RPC message per POST",
      );
    }
    // The SDK's client cancels a listen without the 2026 envelope: whichever era it reads as,
    // it may end a listen stream of this caller.
    if (isCancel(parsed)) this.#listens.cancel(parsed, authInfo);
    if (
      !modernHeader && await isLegacyRequest(req, parsed, { maxRequestBodySize: this.#maxBytes })
    ) {
      if (isSubscribe(parsed)) return noSubscriptions(parsed);
      if (Array.isArray(parsed)) {
        const refused = batchRefusal(req, parsed);
        if (refused !== undefined) return refused;
        if (repeatsAnId(parsed)) return await this.#each(req, parsed, toolsets, authInfo);
      }
      return await this.#legacy(req, parsed, toolsets, authInfo);
    }
    if (isListen(parsed)) return await this.#listens.serve(req, parsed, toolsets, authInfo);
    this.#bodies.set(req, parsed);
    return await this.#handlerFor(toolsets).fetch(req, { authInfo, parsedBody: parsed });
  }

  /** A 2025-era POST, on a server and SDK transport made for it alone. */
  async #legacy(
    req: Request,
    parsed: unknown,
    toolsets: readonly Toolset[],
    authInfo?: AuthInfo,
    json = false,
  ): Promise<Response> {
    const server = this.#app.buildServer(toolsets, needsOf(parsed));
    const streaming = !json && asksProgress(parsed);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: !streaming,
    });
    await server.connect(transport);
    const response = await transport.handleRequest(req, { authInfo, parsedBody: parsed });
    // A JSON answer is complete; a stream ends when its last answer is written.
    if (!streaming || response.body === null) await server.close();
    return response;
  }

  /**
   * A 2025-03-26 batch that repeats a request id, answered message by message: the SDK's
   * transport keys its answers by id, so it would answer such a batch with one of them. Each
   * request gets its answer, in order, as plain JSON (progress is not streamed here).
   */
  async #each(
    req: Request,
    batch: unknown[],
    toolsets: readonly Toolset[],
    authInfo?: AuthInfo,
  ): Promise<Response> {
    const headers = new Headers(req.headers);
    headers.delete("content-length");
    const answers = await Promise.all(batch.map(async (message) => {
      const one = new Request(req.url, { method: "POST", headers, body: JSON.stringify(message) });
      const response = await this.#legacy(one, message, toolsets, authInfo, true);
      if (response.status === 202 || response.body === null) {
        await response.body?.cancel();
        return undefined;
      }
      return await response.json();
    }));
    const answered = answers.filter((a) => a !== undefined);
    if (answered.length === 0) return new Response(null, { status: 202 });
    return Response.json(answered);
  }

  /**
   * Ends the 2026-07-28 exchanges and listen streams still open (2025 ones hold nothing between
   * requests).
   */
  async close(): Promise<void> {
    const handlers = [...this.#handlers.values()];
    this.#handlers.clear();
    await Promise.all([this.#listens.close(), ...handlers.map((h) => h.close())]);
  }

  #handlerFor(toolsets: readonly Toolset[]): McpHttpHandler {
    const key = toolsets.map((t) => t.name).join(",");
    let handler = this.#handlers.get(key);
    if (handler === undefined) {
      handler = createMcpHandler(
        (ctx) => {
          const req = ctx.requestInfo;
          const body = req === undefined ? undefined : this.#bodies.get(req);
          const needs = body === undefined && req !== undefined
            ? needsOfHeaders(req.headers)
            : needsOf(body);
          return this.#app.buildServer(toolsets, { ...needs, modern: true });
        },
        { legacy: "reject", maxRequestBodySize: this.#maxBytes },
      );
      this.#handlers.set(key, handler);
    }
    return handler;
  }
}

/** Whether `MCP-Protocol-Version` names the 2026-07-28 revision or a later one. */
function isModernHeader(version: string | null): boolean {
  return version !== null && version >= "2026";
}

/**
 * What a 2026-07-28 request's server must hold, from its `Mcp-Method` and `Mcp-Name` headers
 * (the SDK refuses the request, 400 `-32020`, when they disagree with the body).
 */
export function needsOfHeaders(headers: Headers): RequestNeeds {
  const method = headers.get("mcp-method") ?? "";
  return needsOf({ method, params: { name: headers.get("mcp-name") ?? undefined } });
}

/** The one 2025 revision with JSON-RPC batches (2025-06-18 removed them). */
const BATCH_VERSION = "2025-03-26";

/**
 * The refusal of a 2025 batch of more than `BATCH_MAX` messages or whose `MCP-Protocol-Version`
 * is a revision without batches, or
 * nothing when it may be answered: the 2025-03-26 revision has them, and a request without the
 * header is read as that revision (as the 2025-06-18 transport rules say a server should).
 */
function batchRefusal(req: Request, batch: unknown[]): Response | undefined {
  const version = req.headers.get("mcp-protocol-version");
  if (version !== null && version !== BATCH_VERSION) {
    return rpcError(
      400,
      -32600,
      `Invalid Request: protocol ${version} has no JSON-RPC batches (only ${BATCH_VERSION} has); send one JSON-RPC message per POST`,
    );
  }
  // A batch repeating an id is answered here one by one, past the SDK's own check: each message
  // costs a server, so the SDK's limit is kept before either path.
  if (batch.length > BATCH_MAX) {
    return rpcError(400, -32600, `Invalid Request: Batch must not exceed ${BATCH_MAX} messages`);
  }
  return undefined;
}

/** Whether two requests of `batch` share an id. */
function repeatsAnId(batch: unknown[]): boolean {
  const ids = batch.flatMap((m) => {
    const message = m as { id?: unknown; method?: unknown } | null;
    return message?.method !== undefined && message.id !== undefined
      ? [JSON.stringify(message.id)]
      : [];
  });
  return new Set(ids).size < ids.length;
}

/** Whether a batch claims the 2026-07-28 revision, by its header or by a message's envelope. */
function isModern(req: Request, batch: unknown[]): boolean {
  const header = req.headers.get("mcp-protocol-version");
  if (header !== null && header >= "2026") return true;
  return batch.some((m) => {
    const meta = (m as { params?: { _meta?: Record<string, unknown> } })?.params?._meta;
    return typeof meta === "object" && meta !== null && VERSION_KEY in meta;
  });
}

/** Whether any request in `body` carries a progress token (its answer must be a stream). */
function asksProgress(body: unknown): boolean {
  return (Array.isArray(body) ? body : [body]).some((m) =>
    (m as { params?: { _meta?: { progressToken?: unknown } } })?.params?._meta?.progressToken !==
      undefined
  );
}

/**
 * What a request's server must hold, from its body: the tools it calls, whether it lists them,
 * whether it reaches prompts or resources. A body the factory cannot see (none should) gets
 * everything, so nothing is refused for want of a registration.
 */
export function needsOf(body: unknown): RequestNeeds {
  if (body === undefined) return { tools: [], listTools: true, others: true, all: true };
  const needs: RequestNeeds = { tools: [], listTools: false, others: false };
  for (const message of Array.isArray(body) ? body : [body]) {
    const { method, params } = (message ?? {}) as { method?: unknown; params?: { name?: unknown } };
    if (typeof method !== "string") continue;
    if (method === "tools/call") {
      // Once each: a batch may call one tool twice, and a server registers a tool once.
      const name = params?.name;
      if (typeof name === "string" && !needs.tools.includes(name)) needs.tools.push(name);
    } else if (method === "tools/list") {
      needs.listTools = true;
    } else if (!BARE.has(method) && !method.startsWith("notifications/")) {
      needs.others = true;
    }
  }
  return needs;
}

/** Methods a server answers from its options alone. */
const BARE = new Set(["initialize", "server/discover", "ping", "logging/setLevel"]);

/** Whether a 2025 body is one `resources/subscribe` (or `unsubscribe`) request. */
function isSubscribe(parsed: unknown): boolean {
  const method = (parsed as { method?: unknown } | null)?.method;
  return !Array.isArray(parsed) &&
    (method === "resources/subscribe" || method === "resources/unsubscribe");
}

/**
 * The answer to a 2025 `resources/subscribe` here: this endpoint serves 2025 statelessly, so no
 * notice could ever reach the client. The SDK would say only "Method not found"; this says
 * where subscriptions work.
 */
function noSubscriptions(parsed: unknown): Response {
  const id = (parsed as { id?: unknown }).id ?? null;
  return Response.json({
    jsonrpc: "2.0",
    id,
    error: {
      code: -32601,
      message:
        "Method not found: resources/subscribe needs a session that carries notifications, and this endpoint serves 2025 clients statelessly. Listen over 2026-07-28 on this URL (subscriptions/listen), or connect over legacy SSE (/sse) or stdio.",
    },
  });
}
