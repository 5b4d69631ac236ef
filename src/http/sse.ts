/**
 * The legacy HTTP+SSE transport (protocol 2024-11-05) over web streams, for `Deno.serve`.
 * The SDK's own SSE server transport needs node:http. A GET opens an event stream that first
 * announces the endpoint to POST messages to; responses flow back as `message` events.
 */

import { AppError } from "../kit/errors.ts";
import type { Toolset } from "../tools/toolset.ts";
import { plain, readJson } from "../kit/web.ts";
import { BATCH_MAX } from "./mcp_route.ts";
import { rpcError } from "./status.ts";
import { InFlight } from "../mcp/in_flight.ts";
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
  readonly #options: SseOptions;
  #closing = false;

  constructor(options: SseOptions) {
    this.#options = options;
  }

  /** How many sessions are open. */
  get size(): number {
    return this.#sessions.size;
  }

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
    const { maxSessions } = this.#options;
    if (this.#sessions.size >= maxSessions) {
      return plain(
        503,
        `Too many SSE sessions: this server keeps at most ${maxSessions} open (SSE_MAX_SESSIONS). ` +
          "Close one, retry later, or use Streamable HTTP at /mcp, which holds no session.",
        { "retry-after": "30" },
      );
    }
    const sessionId = crypto.randomUUID();
    const endpoint = new URLSearchParams(query);
    endpoint.set("sessionId", sessionId);
    const transport = new SseTransport(
      sessionId,
      `${messagesPath}?${endpoint}`,
      this.#options,
      () => this.#sessions.delete(sessionId),
    );
    this.#sessions.set(sessionId, transport);
    await this.#options.connect(transport, toolsets);
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
      raw = await readJson(req, this.#options.maxRequestBytes);
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
    const batch: unknown[] = Array.isArray(raw) ? raw : [raw];
    let messages: JSONRPCMessage[] | undefined;
    try {
      messages = batch.map((value) => parseJSONRPCMessage(value));
    } catch {
      // Refused below, with the rest of what can be wrong with a request.
    }
    // The body was JSON (else readJson refused it): what is wrong is the request itself.
    const problem = batch.length === 0
      ? "an empty batch holds no message"
      : batch.length > BATCH_MAX
      ? `Batch must not exceed ${BATCH_MAX} messages`
      : messages === undefined
      ? "not a JSON-RPC 2.0 message"
      : undefined;
    if (problem !== undefined) return rpcError(400, -32600, `Invalid Request: ${problem}`);
    for (const message of messages!) transport.deliver(message, { authInfo, request: req });
    return plain(202, "Accepted");
  }

  /**
   * Closes every session when the server shuts down: new sessions and messages are refused at
   * once, and each session closes once every request it already accepted has been answered.
   * The caller bounds the wait.
   */
  async closeAll(): Promise<void> {
    this.#closing = true;
    await Promise.all([...this.#sessions.values()].map(async (t) => {
      await t.inFlight.settled();
      await t.close();
    }));
  }
}

/** One SSE session as an MCP `Transport`. */
class SseTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  readonly sessionId: string;
  readonly stream: ReadableStream<Uint8Array>;
  readonly #encoder = new TextEncoder();
  readonly #forget: () => void;
  readonly #idleMs: number;
  #controller?: ReadableStreamDefaultController<Uint8Array>;
  #timer?: ReturnType<typeof setInterval>;
  #idleTimer?: ReturnType<typeof setTimeout>;
  /** Last POST or message sent; keep-alive comments do not count. */
  #lastActive = Date.now();
  /** The requests delivered and not yet answered. */
  readonly inFlight = new InFlight();
  /** Whether the session has ended (it takes no more messages). */
  closed = false;

  constructor(
    sessionId: string,
    endpoint: string,
    options: { keepAliveMs: number; idleMs: number },
    forget: () => void,
  ) {
    this.sessionId = sessionId;
    this.#forget = forget;
    this.#idleMs = options.idleMs;
    this.stream = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#controller = controller;
        this.#write(`event: endpoint\ndata: ${endpoint}\n\n`);
        this.#timer = setInterval(() => this.#write(": keep-alive\n\n"), options.keepAliveMs);
        this.#watchIdle(options.idleMs);
      },
      cancel: () => this.close(),
    });
  }

  /** Closes the session once it has been idle for `idleMs`; a request in flight is activity. */
  #watchIdle(delay: number): void {
    this.#idleTimer = setTimeout(() => {
      const quiet = Date.now() - this.#lastActive;
      if (this.inFlight.size === 0 && quiet >= this.#idleMs) void this.close();
      else this.#watchIdle(Math.max(this.#idleMs - quiet, 1));
    }, delay);
  }

  start(): Promise<void> {
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.reject(new Error("SSE session is closed"));
    this.#lastActive = Date.now();
    this.#write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
    this.inFlight.answered(message);
    return Promise.resolve();
  }

  deliver(message: JSONRPCMessage, extra: MessageExtraInfo): void {
    this.#lastActive = Date.now();
    this.inFlight.received(message);
    this.onmessage?.(message, extra);
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    clearInterval(this.#timer);
    clearTimeout(this.#idleTimer);
    this.#forget();
    try {
      this.#controller?.close();
    } catch {
      // The client already went away; the stream is closed either way.
    }
    this.onclose?.();
    return Promise.resolve();
  }

  #write(text: string): void {
    if (this.closed) return;
    try {
      this.#controller?.enqueue(this.#encoder.encode(text));
    } catch {
      // Enqueue fails once the client has dropped the stream: end the session.
      void this.close();
    }
  }
}
