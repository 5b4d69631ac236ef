/**
 * The 2026-07-28 `subscriptions/listen` streams of `/mcp`. The SDK's handler serves each stream
 * (the acknowledgement, the subscription id stamped on every notice, keepalives, the graceful
 * close), but its event bus reaches every stream that names a URI, and a URI here can mean
 * something per caller (`handoff://table/{workspace}/waiting` is the caller's own). So each
 * stream gets a handler of its own whose bus hears only what that stream's `Listening` holds
 * (`mcp/listening.ts`, the path every transport listens by) on the process's notice bus, which
 * follows other processes too. Refusals come before anything is held, in-band as the SDK
 * answers its own (HTTP 200, a JSON-RPC error), each limit naming its setting.
 */

import type { McpApp, Toolset } from "../mcp/server.ts";
import { type AuthInfo, createMcpHandler, type McpHttpHandler } from "../mcp/sdk.ts";
import { filterOf, refusalOf } from "../mcp/listening.ts";
import type { Caller } from "../kit/caller.ts";

/** How the streams are served. */
export interface ListenOptions {
  maxRequestBytes: number;
  /** How often an idle stream gets a keepalive comment (`SSE_KEEPALIVE_MS`). */
  keepAliveMs: number;
}

/** One open stream: its handler, and who opened it with which request id. */
interface Stream {
  handler: McpHttpHandler;
  /** The caller and request id, as a cancellation names them (`keyOf`). */
  key: string;
  /** The client's name from the request's envelope, if it gave one. */
  client: string | undefined;
}

/** What a server made for a stream holds: nothing but the listen itself. */
const NEEDS = { tools: [], listTools: false, others: false, modern: true };

/** The open listen streams of one process. */
export class ListenStreams {
  readonly #open = new Set<Stream>();

  constructor(readonly app: McpApp, readonly options: ListenOptions) {}

  /** Serves one `subscriptions/listen` POST whose body is `parsed`. */
  async serve(
    req: Request,
    parsed: unknown,
    toolsets: readonly Toolset[],
    authInfo?: AuthInfo,
  ): Promise<Response> {
    const { id = null, params } = parsed as { id?: string | number; params?: unknown };
    const caller = this.app.callerOf(authInfo);
    const listening = this.app.listening(toolsets);
    try {
      this.app.notices.checkStreams(this.#open.size);
      const { uris, lists } = filterOf(params);
      listening.add("stream", uris, caller, { lists, connector: new URL(req.url).searchParams });
    } catch (error) {
      listening.close();
      // In-band (HTTP 200), as the SDK refuses a listen itself.
      return Response.json(refusalOf(id, error));
    }
    // This stream's own bus: it hears only what this stream's caller listens to, and the SDK
    // subscribes to it while it opens the stream.
    const handler = createMcpHandler(() => this.app.buildServer(toolsets, NEEDS), {
      legacy: "reject",
      bus: {
        publish: () => {},
        subscribe: (listener) => {
          listening.deliverTo(listener);
          this.#open.add(stream);
          return () => {
            listening.close();
            this.#open.delete(stream);
          };
        },
      },
      maxSubscriptions: 1,
      keepAliveMs: this.options.keepAliveMs,
      maxRequestBodySize: this.options.maxRequestBytes,
    });
    const stream: Stream = { handler, key: keyOf(caller, id), client: clientNameOf(parsed) };
    const response = await handler.fetch(req, { authInfo, parsedBody: parsed });
    // No stream open now (a refusal, a filter the SDK honours nothing of, or already ended):
    // nothing may stay held for it.
    if (!this.#open.has(stream)) listening.close();
    return response;
  }

  /**
   * A `notifications/cancelled` from `authInfo`'s caller: ends the listen stream it names, as the
   * SDK's client sends one beside closing the stream (a closed fetch does not always reach the
   * server). A request id is the client's choice, so one is ended only when exactly one stream of
   * that caller (and client, when the notice names it) has that id.
   */
  cancel(parsed: unknown, authInfo?: AuthInfo): void {
    const requestId = (parsed as { params?: { requestId?: unknown } }).params?.requestId;
    if (requestId === undefined || this.#open.size === 0) return;
    const key = keyOf(this.app.callerOf(authInfo), requestId);
    const client = clientNameOf(parsed);
    const named = [...this.#open].filter((s) =>
      s.key === key && (client === undefined || s.client === undefined || s.client === client)
    );
    if (named.length !== 1) return;
    this.#open.delete(named[0]);
    void named[0].handler.close();
  }

  /** Ends every stream gracefully (shutdown): each client gets its listen request's result. */
  async close(): Promise<void> {
    const open = [...this.#open];
    this.#open.clear();
    await Promise.all(open.map((s) => s.handler.close()));
  }
}

/** Who opened a stream with which request id, as one string. */
function keyOf(caller: Caller, requestId: unknown): string {
  return JSON.stringify([caller.name.toLowerCase(), caller.via, caller.clientId, requestId]);
}

/** The client's name in a 2026 request's envelope (`io.modelcontextprotocol/clientInfo`). */
function clientNameOf(parsed: unknown): string | undefined {
  const meta = (parsed as { params?: { _meta?: Record<string, unknown> } })?.params?._meta;
  const info = meta?.["io.modelcontextprotocol/clientInfo"] as { name?: unknown } | undefined;
  return typeof info?.name === "string" ? info.name : undefined;
}
