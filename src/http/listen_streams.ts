/**
 * The 2026-07-28 `subscriptions/listen` streams of `/mcp`. The SDK's handler serves each stream
 * (the acknowledgement, the subscription id stamped on every notice, keepalives, the graceful
 * close), but its event bus reaches every stream that names a URI, and a URI here can mean
 * something per caller (`handoff://table/{workspace}/waiting` is the caller's own). So each
 * stream gets a handler of its own whose bus hears only what that stream's `Listening` holds
 * (`mcp/listening.ts`, the path every transport listens by) on the process's notice bus, which
 * follows other processes too.
 *
 * Refusals come before anything is held, in-band as the SDK answers its own (HTTP 200, a
 * JSON-RPC error): a URI no toolset tells of, and the limits, each naming its setting.
 */

import type { McpApp, Toolset } from "../mcp/server.ts";
import {
  type AuthInfo,
  createMcpHandler,
  type McpHttpHandler,
  type ServerEventBus,
} from "../mcp/sdk.ts";
import { filterOf, refusalOf } from "../mcp/listening.ts";
import { NOTICE_SETTING_OF } from "../kit/notice_settings.ts";
import type { Caller } from "../kit/caller.ts";
import { AppError } from "../kit/errors.ts";

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

/** The open listen streams of one process. */
export class ListenStreams {
  readonly #app: McpApp;
  readonly #options: ListenOptions;
  readonly #open = new Set<Stream>();

  constructor(app: McpApp, options: ListenOptions) {
    this.#app = app;
    this.#options = options;
  }

  /** How many streams are open. */
  get size(): number {
    return this.#open.size;
  }

  /** Serves one `subscriptions/listen` POST whose body is `parsed`. */
  async serve(
    req: Request,
    parsed: unknown,
    toolsets: readonly Toolset[],
    authInfo?: AuthInfo,
  ): Promise<Response> {
    const message = parsed as { id?: string | number; params?: unknown };
    const id = message.id ?? null;
    const caller = this.#app.callerOf(authInfo);
    const listening = this.#app.listening(toolsets);
    try {
      const max = this.#app.notices.settings.streamsMax;
      if (this.#open.size >= max) {
        throw new AppError(
          "full",
          `This server holds at most ${max} subscription streams (${NOTICE_SETTING_OF.streamsMax}) and all are open: close one, try again later, or ask its owner to raise ${NOTICE_SETTING_OF.streamsMax}`,
        );
      }
      const { uris, lists } = filterOf(message.params);
      listening.add(STREAM, uris, caller, { lists, connector: new URL(req.url).searchParams });
    } catch (error) {
      listening.close();
      // In-band (HTTP 200), as the SDK refuses a listen itself.
      return Response.json(refusalOf(id, error));
    }
    let subscribed = false;
    let ended = false;
    // This stream's own bus: it hears only what this stream's caller listens to.
    const bus: ServerEventBus = {
      publish: () => {},
      subscribe: (listener) => {
        subscribed = true;
        listening.deliverTo(listener);
        return () => {
          ended = true;
          listening.close();
          this.#open.delete(stream);
        };
      },
    };
    const handler = this.#handlerOf(toolsets, bus);
    const stream: Stream = { handler, key: keyOf(caller, id), client: clientNameOf(message) };
    const response = await handler.fetch(req, { authInfo, parsedBody: parsed });
    // The SDK subscribes while it builds the stream: no subscription means no stream (a refusal,
    // or a filter it honours nothing of), and nothing may stay held for it.
    if (!subscribed) listening.close();
    else if (!ended) this.#open.add(stream);
    return response;
  }

  /** The SDK's handler of one stream, whose events come from `bus` alone. */
  #handlerOf(toolsets: readonly Toolset[], bus: ServerEventBus): McpHttpHandler {
    const needs = { tools: [], listTools: false, others: false, modern: true };
    return createMcpHandler(() => this.#app.buildServer(toolsets, needs), {
      legacy: "reject",
      bus,
      maxSubscriptions: 1,
      keepAliveMs: this.#options.keepAliveMs,
      maxRequestBodySize: this.#options.maxRequestBytes,
    });
  }

  /**
   * A `notifications/cancelled` from `authInfo`'s caller: ends the listen stream it names, as the
   * SDK's client sends one beside closing the stream (a closed fetch does not always reach the
   * server). A request id is the client's choice, so one is ended only when exactly one stream of
   * that caller (and client, when the notice names it) has that id.
   */
  cancel(parsed: unknown, authInfo?: AuthInfo): void {
    const message = parsed as { params?: { requestId?: unknown } };
    const requestId = message.params?.requestId;
    if (requestId === undefined || this.#open.size === 0) return;
    const key = keyOf(this.#app.callerOf(authInfo), requestId);
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

/** The holder of everything a stream listens to. */
const STREAM = "stream";

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

/** Whether a parsed body is one `notifications/cancelled`. */
export function isCancel(parsed: unknown): boolean {
  return !Array.isArray(parsed) && (parsed as { method?: unknown })?.method ===
      "notifications/cancelled";
}

/** Whether a parsed body is one `subscriptions/listen` request. */
export function isListen(parsed: unknown): boolean {
  return !Array.isArray(parsed) && (parsed as { method?: unknown })?.method ===
      "subscriptions/listen";
}
