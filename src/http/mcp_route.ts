/**
 * The one router of a POST to `/mcp`. Its body, read once by the SDK's `readRequestBody` and
 * parsed once (`readRpcBody`), is looked at here and nowhere else (`routeOf`), then handed to the
 * SDK parsed. (Handing a 2026 request whose headers name its method to the SDK unread measured no
 * faster in `deno task bench eras`, so every body takes this one path.) It decides the era (the
 * SDK's `classifyInboundRequest`, the predicate behind `createMcpHandler` and `isLegacyRequest`),
 * a listen stream, a cancellation that may end one, the batch rules and the 2025 subscribe
 * refusal, whether a 2025 answer must stream progress, and what the request's server must hold
 * (`RequestNeeds` for `McpApp.buildServer`).
 */

import type { RequestNeeds } from "../mcp/server.ts";
import {
  classifyInboundRequest,
  isJsonContentType,
  PROTOCOL_VERSION_META_KEY,
  readRequestBody,
} from "../mcp/sdk.ts";
import { rpcError } from "./status.ts";

/**
 * Most messages in one JSON-RPC batch: the SDK transport's own limit, kept on every path that
 * takes batches (each message is a request in flight).
 */
export const BATCH_MAX = 100;

/** What to do with one POST to `/mcp`. */
export type McpRoute =
  /** Answered here, before any server is made. */
  | { kind: "refused"; response: Response }
  /** A 2026-07-28 request, to the SDK's strict handler with a server holding `needs`. */
  | { kind: "modern"; needs: RequestNeeds }
  /** A 2026-07-28 `subscriptions/listen`, to `ListenStreams`. */
  | { kind: "listen" }
  /** A 2025 request or batch, on a transport of its own; `stream` when it asks for progress. */
  | { kind: "legacy"; needs: RequestNeeds; stream: boolean }
  /** A 2025-03-26 batch repeating an id: each message served alone, answered as plain JSON. */
  | { kind: "each"; parts: { message: unknown; needs: RequestNeeds }[] };

/** A route, and whether the body is a `notifications/cancelled` that may end a listen stream. */
export type Routed = McpRoute & { cancels: boolean };

/** The one 2025 revision with JSON-RPC batches (2025-06-18 removed them). */
const BATCH_VERSION = "2025-03-26";

/** Methods a server answers from its options alone. */
const BARE = new Set(["initialize", "server/discover", "ping", "logging/setLevel"]);

/** A JSON-RPC message as far as routing looks at it. */
type Message = {
  id?: unknown;
  method?: unknown;
  params?: { name?: unknown; _meta?: Record<string, unknown> };
} | null;

/**
 * Reads and parses a JSON body under `maxBytes` (`MAX_REQUEST_BYTES`), or refuses it with the
 * JSON-RPC error the input earns (an empty batch, a body cut short).
 */
export async function readRpcBody(
  req: Request,
  maxBytes: number,
): Promise<{ parsed: unknown } | Response> {
  if (!isJsonContentType(req.headers.get("content-type"))) {
    return rpcError(415, -32000, "Unsupported Media Type: Content-Type must be application/json");
  }
  let text: string;
  try {
    const read = await readRequestBody(req, maxBytes);
    if (read.tooLarge) {
      return rpcError(
        413,
        -32000,
        `Request body is larger than ${maxBytes} bytes (MAX_REQUEST_BYTES)`,
      );
    }
    text = read.text;
  } catch {
    // The connection ended mid-body (the client left, or the server is shutting down).
    return rpcError(400, -32700, "Parse error: the request body could not be read to its end");
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return rpcError(400, -32700, "Parse error: Invalid JSON");
  }
  if (Array.isArray(parsed) && parsed.length === 0) {
    return rpcError(400, -32600, "Invalid Request: an empty batch holds no message");
  }
  return { parsed };
}

/** Routes one POST whose body parsed to `parsed` (never an empty batch: `readRpcBody` refuses it). */
export function routeOf(req: Request, parsed: unknown): Routed {
  const version = req.headers.get("mcp-protocol-version") ?? undefined;
  const modernHeader = version !== undefined && version >= "2026";
  const batch = Array.isArray(parsed) ? parsed as Message[] : undefined;
  const one = batch === undefined ? parsed as Message : undefined;
  const cancels = one?.method === "notifications/cancelled";
  if (batch !== undefined && (modernHeader || batch.some(claimsModern))) {
    return refused("protocol 2026-07-28 has no batches; send one JSON-RPC message per POST");
  }
  if (modernHeader || !isLegacy(req, version, parsed)) {
    if (one?.method === "subscriptions/listen") return { kind: "listen", cancels };
    return { kind: "modern", needs: { ...needsOf([parsed]), modern: true }, cancels };
  }
  if (one?.method === "resources/subscribe" || one?.method === "resources/unsubscribe") {
    const response = rpcError(200, -32601, NO_SUBSCRIPTIONS, one.id ?? null);
    return { kind: "refused", response, cancels };
  }
  if (batch !== undefined) {
    if (version !== undefined && version !== BATCH_VERSION) {
      return refused(
        `protocol ${version} has no JSON-RPC batches (only ${BATCH_VERSION} has); send one JSON-RPC message per POST`,
      );
    }
    // A batch repeating an id is answered here one by one, past the SDK's own check: each message
    // costs a server, so the SDK's limit is kept before either path.
    if (batch.length > BATCH_MAX) return refused(`Batch must not exceed ${BATCH_MAX} messages`);
    if (repeatsAnId(batch)) {
      const parts = batch.map((m) => ({ message: m, needs: needsOf([m]) }));
      return { kind: "each", parts, cancels };
    }
  }
  const messages = batch ?? [one];
  // A progress token on any message asks for a stream.
  const stream = messages.some((m) => m?.params?._meta?.progressToken !== undefined);
  return { kind: "legacy", needs: needsOf(messages), stream, cancels };
}

/**
 * Whether the SDK's `createMcpHandler` would serve this request under 2025 rules: the same
 * classification, from the body already parsed.
 */
function isLegacy(req: Request, version: string | undefined, body: unknown): boolean {
  const outcome = classifyInboundRequest({
    httpMethod: "POST",
    protocolVersionHeader: version,
    mcpMethodHeader: req.headers.get("mcp-method") ?? undefined,
    mcpNameHeader: req.headers.get("mcp-name") ?? undefined,
    body,
  });
  return outcome.kind === "legacy";
}

/**
 * What a request's server must hold, from its messages: the tools it calls, whether it lists
 * them, whether it reaches prompts or resources.
 */
export function needsOf(messages: readonly unknown[]): RequestNeeds {
  const needs: RequestNeeds = { tools: [], listTools: false, others: false };
  for (const message of messages as Message[]) {
    const method = message?.method;
    if (typeof method !== "string") continue;
    if (method === "tools/call") {
      // Once each: a batch may call one tool twice, and a server registers a tool once.
      const name = message?.params?.name;
      if (typeof name === "string" && !needs.tools.includes(name)) needs.tools.push(name);
    } else if (method === "tools/list") {
      needs.listTools = true;
    } else if (!BARE.has(method) && !method.startsWith("notifications/")) {
      needs.others = true;
    }
  }
  return needs;
}

/** Whether a message carries the 2026-07-28 envelope's protocol version. */
function claimsModern(message: Message): boolean {
  const meta = message?.params?._meta;
  return typeof meta === "object" && meta !== null && PROTOCOL_VERSION_META_KEY in meta;
}

/** Whether two requests of `batch` share an id. */
function repeatsAnId(batch: Message[]): boolean {
  const ids = batch.flatMap((m) =>
    m?.method !== undefined && m.id !== undefined ? [JSON.stringify(m.id)] : []
  );
  return new Set(ids).size < ids.length;
}

/** A batch refused before any server is made (a single message is never refused here). */
function refused(problem: string): Routed {
  const response = rpcError(400, -32600, `Invalid Request: ${problem}`);
  return { kind: "refused", response, cancels: false };
}

/**
 * The answer to a 2025 `resources/subscribe` here: this endpoint serves 2025 statelessly, so no
 * notice could ever reach the client. The SDK would say only "Method not found"; this says
 * where subscriptions work.
 */
const NO_SUBSCRIPTIONS =
  "Method not found: resources/subscribe needs a session that carries notifications, and this endpoint serves 2025 clients statelessly. Listen over 2026-07-28 on this URL (subscriptions/listen), or connect over legacy SSE (/sse) or stdio.";
