/**
 * The legacy HTTP+SSE transport (protocol 2024-11-05) over web streams, for `Deno.serve`.
 * The SDK's own SSE server transport needs node:http. A GET opens an event stream that first
 * announces the endpoint to POST messages to; responses flow back as `message` events.
 */

import { AppError } from "../kit/errors.ts";
import type { Toolset } from "../tools/toolset.ts";
import { plain, readJson } from "../kit/web.ts";
import { rpcError } from "./status.ts";
import { BATCH_MAX } from "./mcp_route.ts";
import { ConnectionTransport } from "../mcp/connection.ts";
import {
  type AuthInfo,
  isJsonContentType,
  type JSONRPCMessage,
  type MessageExtraInfo,
  parseJSONRPCMessage,
  type Transport,
} from "../mcp/sdk.ts";

/** What the SSE sessions need from the rest of the server. */
export interface SseOptions {
  keepAliveMs: number;
  maxRequestBytes: number;
  /** Most sessions open at once (`SSE_MAX_SESSIONS`); the next GET gets 503. */
  maxSessions: number;
  /** A session with no POST, no answer sent and no request in flight this long is closed. */
  idleMs: number;
  /** Connects a new MCP server, exposing `toolsets`, to the transport of a new session. */
  connect(transport: Transport, toolsets: readonly Toolset[]): Promise<void>;
}

const SHUTTING_DOWN = () =>
  plain(503, "The server is shutting down: reconnect in a moment", { "retry-after": "5" });

/** The open legacy SSE sessions of this process. */
export class SseSessions {
  readonly #sessions = new Map<string, SseTransport>();
  #closing = false;

  constructor(readonly options: SseOptions) {}

  /**
   * Opens a session exposing `toolsets`; `messagesPath` is where its client must POST. The
   * connector URL's `query` is kept on that path: a session's calls arrive there, and what the
   * connector chose by query (memory's `?graph=`) must reach every one of them.
   */
  async open(
    messagesPath: string,
    toolsets: readonly Toolset[],
    query: URLSearchParams = new URLSearchParams(),
  ): Promise<Response> {
    if (this.#closing) return SHUTTING_DOWN();
    const { maxSessions } = this.options;
    if (this.#sessions.size >= maxSessions) {
      return plain(
        503,
        `Too many SSE sessions: this server keeps at most ${maxSessions} open (SSE_MAX_SESSIONS). ` +
          "Close one, retry later, or use Streamable HTTP at /mcp, which holds no session.",
        { "retry-after": "30" },
      );
    }
    const transport = new SseTransport(messagesPath, query, this.options, this.#sessions);
    await this.options.connect(transport, toolsets);
    return new Response(transport.stream, {
      headers: {
        "content-type": "text/event-stream",
        "cache-control": "no-cache, no-transform",
        "x-accel-buffering": "no",
      },
    });
  }

  /**
   * Delivers one POSTed JSON-RPC message (or batch) to its session, with the `authInfo` of this
   * POST's caller: a session's messages may come from different callers, each resolved per POST.
   */
  async post(req: Request, sessionId: string | null, authInfo: AuthInfo): Promise<Response> {
    const transport = sessionId === null ? undefined : this.#sessions.get(sessionId);
    if (!transport) {
      return plain(404, "Session not found: open a new one with GET on the sse endpoint");
    }
    if (this.#closing) return SHUTTING_DOWN();
    if (!isJsonContentType(req.headers.get("content-type") ?? "")) {
      return plain(415, "Content-Type must be application/json");
    }
    let raw: unknown;
    try {
      raw = await readJson(req, this.options.maxRequestBytes);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      return plain(error.kind === "too_large" ? 413 : 400, error.message);
    }
    // The body may have taken a while: a session closed meanwhile (shutdown, idle) would take
    // the message and never answer it, so refuse it and let the client send it again.
    if (this.#closing) return SHUTTING_DOWN();
    if (transport.closed) {
      return plain(404, "Session closed: open a new one with GET on the sse endpoint");
    }
    // The body was JSON (else readJson refused it): what is wrong is the request itself.
    const messages = messagesOf(raw);
    if (typeof messages === "string") return rpcError(400, -32600, `Invalid Request: ${messages}`);
    for (const message of messages) transport.deliver(message, { authInfo, request: req });
    return plain(202, "Accepted");
  }

  /**
   * Closes every session when the server shuts down: new sessions and messages are refused at
   * once, and each session closes once every request it already accepted has been answered.
   * The caller bounds the wait.
   */
  async closeAll(): Promise<void> {
    this.#closing = true;
    await Promise.all([...this.#sessions.values()].map((t) => t.settled().then(() => t.close())));
  }
}

/** The messages of a POSTed body, or what is wrong with it as JSON-RPC. */
function messagesOf(raw: unknown): JSONRPCMessage[] | string {
  const batch: unknown[] = Array.isArray(raw) ? raw : [raw];
  if (batch.length === 0) return "an empty batch holds no message";
  if (batch.length > BATCH_MAX) return `Batch must not exceed ${BATCH_MAX} messages`;
  try {
    return batch.map((value) => parseJSONRPCMessage(value));
  } catch {
    return "not a JSON-RPC 2.0 message";
  }
}

/** One SSE session: its event stream, kept alive, closed after `idleMs` without activity. */
class SseTransport extends ConnectionTransport {
  readonly sessionId = crypto.randomUUID();
  /** The event stream the GET answers with: what `#events` is given, encoded. */
  readonly stream: ReadableStream<Uint8Array>;
  readonly #events: WritableStreamDefaultWriter<string>;
  readonly #sessions: Map<string, SseTransport>;
  readonly #idleMs: number;
  readonly #keepAlive: ReturnType<typeof setInterval>;
  #idleTimer?: ReturnType<typeof setTimeout>;

  /** Joins `sessions`; its client POSTs to `messagesPath`, `query` kept (see `open`). */
  constructor(
    messagesPath: string,
    query: URLSearchParams,
    options: { keepAliveMs: number; idleMs: number },
    sessions: Map<string, SseTransport>,
  ) {
    super("SSE session");
    this.#sessions = sessions.set(this.sessionId, this);
    this.#idleMs = options.idleMs;
    const { readable, writable } = new TextEncoderStream();
    this.stream = readable;
    this.#events = writable.getWriter();
    // The client went away (it cancelled the stream): end the session.
    this.#events.closed.catch(() => this.close());
    const endpoint = new URLSearchParams(query);
    endpoint.set("sessionId", this.sessionId);
    this.#enqueue(`event: endpoint\ndata: ${messagesPath}?${endpoint}\n\n`);
    this.#keepAlive = setInterval(() => this.#enqueue(": keep-alive\n\n"), options.keepAliveMs);
    this.#touch();
  }

  /**
   * Restarts the idle clock (a POST or a message sent; keep-alive comments do not count): the
   * session closes after `idleMs` of quiet, later while a request is in flight.
   */
  #touch(): void {
    clearTimeout(this.#idleTimer);
    const idle = () => this.pending === 0 ? void this.close() : this.#touch();
    this.#idleTimer = setTimeout(idle, this.#idleMs);
  }

  protected write(message: object): Promise<void> {
    this.#touch();
    this.#enqueue(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
    return Promise.resolve();
  }

  override deliver(message: JSONRPCMessage, extra: MessageExtraInfo): void {
    this.#touch();
    super.deliver(message, extra);
  }

  protected end(): void {
    clearInterval(this.#keepAlive);
    clearTimeout(this.#idleTimer);
    this.#sessions.delete(this.sessionId);
    // Fails only when the client already went away; the stream is closed either way.
    this.#events.close().catch(() => {});
  }

  #enqueue(text: string): void {
    // A write fails only once the client has gone, which ends the session (see the constructor).
    if (!this.closed) this.#events.write(text).catch(() => {});
  }
}
