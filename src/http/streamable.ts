/**
 * Stateless Streamable HTTP (MCP 2025-03-26 and later) served by one long-lived MCP server per
 * toolset choice, instead of a new server and SDK transport per POST: each POST's requests get
 * ids unique in this process, and their responses (and the notifications sent for them) are
 * routed back to that POST. The answer is plain JSON, or an event stream when a request carries
 * a progress token (progress notifications need one). Request checks mirror the SDK transport's
 * (and, as JSON-RPC says, an empty batch is refused; see `body.ts`).
 */

import { isRequestEnvelope } from "../mcp/dispatch.ts";
import type { McpApp, Toolset } from "../mcp/server.ts";
import {
  type AuthInfo,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  type McpServer,
  SUPPORTED_PROTOCOL_VERSIONS,
  type Transport,
  type TransportSendOptions,
} from "../mcp/sdk.ts";
import { isJson, readRpcBody, rpcError } from "./body.ts";
import { EncodedTexts } from "./encoded_texts.ts";

/** Most messages one POST may carry (the SDK transport's limit). */
const MAX_BATCH_SIZE = 100;

/** The `/mcp` endpoint of one process: a shared server per toolset choice, built on first use. */
export class StatelessStreamable {
  readonly #app: McpApp;
  readonly #maxBytes: number;
  readonly #servers = new Map<string, Promise<{ server: McpServer; mux: RequestMux }>>();
  /** The toolset list last asked for and its server. */
  #last?: {
    toolsets: readonly Toolset[];
    entry: Promise<{ server: McpServer; mux: RequestMux }>;
  };

  constructor(app: McpApp, maxRequestBytes: number) {
    this.#app = app;
    this.#maxBytes = maxRequestBytes;
  }

  /** Answers one POST to `/mcp` for a client that chose `toolsets`. */
  async post(req: Request, toolsets: readonly Toolset[], authInfo?: AuthInfo): Promise<Response> {
    const accept = req.headers.get("accept") ?? "";
    if (!accept.includes("application/json") || !accept.includes("text/event-stream")) {
      return rpcError(
        406,
        -32000,
        "Not Acceptable: Client must accept both application/json and text/event-stream",
      );
    }
    if (!isJson(req.headers.get("content-type"))) {
      return rpcError(415, -32000, "Unsupported Media Type: Content-Type must be application/json");
    }
    const body = await readRpcBody(req, this.#maxBytes);
    if (body instanceof Response) return body;
    const list: unknown[] = Array.isArray(body.parsed) ? body.parsed : [body.parsed];
    if (list.length > MAX_BATCH_SIZE) {
      return rpcError(
        400,
        -32600,
        `Invalid Request: Batch must not exceed ${MAX_BATCH_SIZE} messages`,
      );
    }
    const messages: JSONRPCMessage[] = [];
    for (const item of list) {
      // A plain request (nearly every message) is checked without zod, exactly as its schema would.
      if (isRequestEnvelope(item)) {
        messages.push(item);
        continue;
      }
      const parsed = JSONRPCMessageSchema.safeParse(item);
      if (!parsed.success) {
        return rpcError(400, -32700, "Parse error: Invalid JSON-RPC message");
      }
      messages.push(parsed.data as JSONRPCMessage);
    }
    const initializing = messages.some((m) => "method" in m && m.method === "initialize");
    if (initializing && messages.length > 1) {
      return rpcError(400, -32600, "Invalid Request: Only one initialization request is allowed");
    }
    const version = req.headers.get("mcp-protocol-version");
    if (!initializing && version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
      return rpcError(
        400,
        -32000,
        `Bad Request: Unsupported protocol version: ${version} (supported versions: ${
          SUPPORTED_PROTOCOL_VERSIONS.join(", ")
        })`,
      );
    }
    const { mux } = await this.#serverFor(toolsets);
    return mux.exchange(messages, { authInfo, requestInfo: new LazyRequestInfo(req) });
  }

  /** Closes the shared servers once every request they are answering has its answer. */
  async close(): Promise<void> {
    const servers = [...this.#servers.values()];
    this.#servers.clear();
    this.#last = undefined;
    await Promise.all(servers.map(async (entry) => {
      const { server, mux } = await entry;
      await mux.idle();
      await server.close();
    }));
  }

  #serverFor(toolsets: readonly Toolset[]) {
    // Nearly every request asks for the same list object (all enabled toolsets).
    if (toolsets === this.#last?.toolsets) return this.#last.entry;
    const key = toolsets.map((t) => t.name).join(",");
    let entry = this.#servers.get(key);
    if (entry === undefined) {
      entry = (async () => {
        const server = this.#app.server(toolsets, { stateless: true });
        const mux = new RequestMux();
        await server.connect(mux);
        return { server, mux };
      })();
      this.#servers.set(key, entry);
    }
    this.#last = { toolsets, entry };
    return entry;
  }
}

/** What one POST is waiting for: its requests' responses, in request order. */
interface Exchange {
  /** The client's ids, by the ids the server saw. */
  ids: Map<number, string | number>;
  responses: Map<number, JSONRPCMessage>;
  /** Writes one message to an event stream; absent when answering with JSON. */
  write?: (message: JSONRPCMessage) => void;
  done: (responses: JSONRPCMessage[]) => void;
}

/** One `Transport` carrying every POST of a shared server, with each request's id made unique. */
class RequestMux implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport["onmessage"];
  readonly #pending = new Map<number, Exchange>();
  readonly #texts = new EncodedTexts();
  #next = 0;
  /** POSTs still waiting for answers, and who waits for there to be none. */
  #open = 0;
  #idle?: PromiseWithResolvers<void>;

  /** Resolves when no POST is waiting for an answer. */
  idle(): Promise<void> {
    if (this.#open === 0) return Promise.resolve();
    this.#idle ??= Promise.withResolvers();
    return this.#idle.promise;
  }

  #opened(): () => void {
    this.#open++;
    let settled = false;
    return () => {
      if (settled) return;
      settled = true;
      if (--this.#open === 0) {
        this.#idle?.resolve();
        this.#idle = undefined;
      }
    };
  }

  start(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.#pending.clear();
    this.onclose?.();
    return Promise.resolve();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if ("id" in message && !("method" in message)) {
      const id = message.id as number;
      const exchange = this.#pending.get(id);
      if (exchange === undefined) return Promise.resolve(); // its POST is gone
      this.#pending.delete(id);
      const response = { ...message, id: exchange.ids.get(id)! } as JSONRPCMessage;
      exchange.responses.set(id, response);
      exchange.write?.(response);
      if (exchange.responses.size === exchange.ids.size) {
        exchange.done([...exchange.ids.keys()].map((k) => exchange.responses.get(k)!));
      }
      return Promise.resolve();
    }
    // A notification (or request) for one request goes to its POST's stream, if it has one; a
    // stateless server has no stream for anything else.
    const related = options?.relatedRequestId;
    if (typeof related === "number") this.#pending.get(related)?.write?.(message);
    return Promise.resolve();
  }

  /** Delivers one POST's messages and answers when every request in it has been answered. */
  exchange(
    messages: JSONRPCMessage[],
    extra: { authInfo?: AuthInfo; requestInfo: RequestInfo },
  ): Response | Promise<Response> {
    const requests = messages.filter((m) => "method" in m && "id" in m);
    const deliver = (exchange?: Exchange) => {
      for (const message of messages) {
        // A cancellation names a request of another POST, which this client cannot reach.
        if ("method" in message && message.method === "notifications/cancelled") continue;
        if (exchange !== undefined && "method" in message && "id" in message) {
          const id = ++this.#next;
          exchange.ids.set(id, message.id);
          this.#pending.set(id, exchange);
          this.onmessage?.({ ...message, id }, extra);
        } else {
          this.onmessage?.(message, extra);
        }
      }
    };
    if (requests.length === 0) {
      deliver();
      return new Response(null, { status: 202 });
    }
    const streaming = requests.some((m) =>
      (m as { params?: { _meta?: { progressToken?: unknown } } }).params?._meta?.progressToken !==
        undefined
    );
    const settle = this.#opened();
    if (!streaming) {
      return new Promise((resolve) => {
        deliver({
          ids: new Map(),
          responses: new Map(),
          done: (responses) => {
            settle();
            const body = responses.length === 1
              ? this.#texts.json(responses[0])
              : `[${responses.map((r) => this.#texts.json(r)).join(",")}]`;
            resolve(new Response(body, { status: 200, headers: JSON_HEADERS }));
          },
        });
      });
    }
    const encoder = new TextEncoder();
    let open = true;
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        const exchange: Exchange = {
          ids: new Map(),
          responses: new Map(),
          write: (message) => {
            if (!open) return;
            try {
              controller.enqueue(
                encoder.encode(`event: message\ndata: ${this.#texts.json(message)}\n\n`),
              );
            } catch {
              open = false;
            }
          },
          done: () => {
            settle();
            if (!open) return;
            open = false;
            controller.close();
          },
        };
        deliver(exchange);
      },
      cancel: () => {
        open = false;
      },
    });
    return new Response(body, {
      headers: {
        "content-type": "text/event-stream",
        "cache-control": "no-cache, no-transform",
        connection: "keep-alive",
        "x-accel-buffering": "no",
      },
    });
  }
}

const JSON_HEADERS = { "content-type": "application/json" };

/** What the SDK hands a handler about the HTTP request behind it. */
interface RequestInfo {
  readonly headers: Record<string, string>;
  readonly url: URL;
}

/**
 * The request's headers and URL for the SDK's `extra.requestInfo`, built only if a handler reads
 * them (none of ours does): copying every header on every call is measurable work for nothing.
 */
class LazyRequestInfo implements RequestInfo {
  readonly #req: Request;
  #headers?: Record<string, string>;
  #url?: URL;

  constructor(req: Request) {
    this.#req = req;
  }

  get headers(): Record<string, string> {
    return this.#headers ??= Object.fromEntries(this.#req.headers);
  }

  get url(): URL {
    return this.#url ??= new URL(this.#req.url);
  }
}

/** True for `application/json` with or without parameters. */
