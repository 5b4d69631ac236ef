/**
 * The 2026-07-28 `subscriptions/listen` streams of `/mcp`. The SDK's handler serves each stream
 * (the acknowledgement, the subscription id stamped on every notice, keepalives, the graceful
 * close), but its event bus reaches every stream that names a URI, and a URI here can mean
 * something per caller (`handoff://table/{workspace}/waiting` is the caller's own). So each
 * stream gets a handler of its own whose bus hears only what that stream's caller listens to on
 * the process's notice bus (`McpApp.listen`), which follows other processes too.
 *
 * Refusals come before anything is held, in-band as the SDK answers its own (HTTP 200, a
 * JSON-RPC error): a URI no toolset tells of, and the limits, each naming its setting.
 */

import type { McpApp, Toolset } from "../mcp/server.ts";
import {
  type AuthInfo,
  createMcpHandler,
  type McpHttpHandler,
  type ServerEvent,
  type ServerEventBus,
} from "../mcp/sdk.ts";
import { protocolErrorOf, resourceSubscriptionsOf } from "../mcp/subscriptions.ts";
import { NOTICE_SETTING_OF } from "../kit/notice_settings.ts";
import type { Caller } from "../kit/caller.ts";
import { RESOURCE_LIST_CHANGED } from "../kit/notices.ts";

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
    const message = parsed as { id?: unknown; params?: unknown };
    const id = message.id ?? null;
    const max = this.#app.notices.settings.streamsMax;
    if (this.#open.size >= max) {
      return inBand(
        id,
        -32603,
        `This server holds at most ${max} subscription streams (${NOTICE_SETTING_OF.streamsMax}) and all are open: close one, try again later, or ask its owner to raise ${NOTICE_SETTING_OF.streamsMax}`,
      );
    }
    const caller = this.#app.callerOf(authInfo);
    let deliver: ((event: ServerEvent) => void) | undefined;
    let stop: () => void;
    const uris = resourceSubscriptionsOf(message.params);
    try {
      const connector = new URL(req.url).searchParams;
      stop = this.#hold(toolsets, uris, listsChangesOf(message.params), caller, connector, (e) => {
        deliver?.(e);
      });
    } catch (error) {
      const refused = protocolErrorOf(error);
      return inBand(id, refused.code, refused.message);
    }
    let ended = false;
    const bus: ServerEventBus = {
      publish: () => {},
      subscribe: (listener) => {
        deliver = listener;
        return () => {
          ended = true;
          deliver = undefined;
          stop();
          this.#open.delete(stream);
        };
      },
    };
    const handler = createMcpHandler(
      () =>
        this.#app.buildServer(toolsets, {
          tools: [],
          listTools: false,
          others: false,
          modern: true,
        }),
      {
        legacy: "reject",
        bus,
        maxSubscriptions: 1,
        keepAliveMs: this.#options.keepAliveMs,
        maxRequestBodySize: this.#options.maxRequestBytes,
      },
    );
    const stream: Stream = { handler, key: keyOf(caller, id), client: clientNameOf(message) };
    const response = await handler.fetch(req, { authInfo, parsedBody: parsed });
    // The SDK subscribes while it builds the stream: no subscription means no stream (a refusal,
    // or a filter it honours nothing of), and nothing may stay held for it.
    if (deliver === undefined) stop();
    else if (!ended) this.#open.add(stream);
    return response;
  }

  /**
   * Listens to `uris` and, when `lists`, to resource-list changes, for `caller`; all or nothing.
   * Each change is told through `tell` a moment later (see `later`).
   */
  #hold(
    toolsets: readonly Toolset[],
    uris: readonly string[],
    lists: boolean,
    caller: Caller,
    connector: URLSearchParams,
    tell: (event: ServerEvent) => void,
  ): () => void {
    const told = later((uri) => {
      tell(uri === LIST ? { kind: "resources_list_changed" } : { kind: "resource_updated", uri });
    });
    const stops: (() => void)[] = [];
    const stopAll = () => stops.forEach((stop) => stop());
    try {
      if (uris.length > 0) stops.push(this.#app.listen(toolsets, uris, caller, told, connector));
      if (lists) stops.push(this.#app.notices.listen(RESOURCE_LIST_CHANGED, () => told(LIST)));
    } catch (error) {
      stopAll();
      throw error;
    }
    return stopAll;
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

/**
 * `tell`, called a moment later (a macrotask) with each URI changed since, once: a post in this
 * process tells its listeners while it commits, and writing to every stream then would delay the
 * post's own answer (measured in `bench/live.ts`).
 */
function later(tell: (uri: string) => void): (uri: string) => void {
  const changed = new Set<string>();
  return (uri) => {
    if (changed.size === 0) {
      setTimeout(() => {
        const uris = [...changed];
        changed.clear();
        for (const u of uris) tell(u);
      }, 0);
    }
    changed.add(uri);
  };
}

/** `later`'s key for a resource-list change (no URI is empty). */
const LIST = "";

/** Whether a listen's filter asks for resource-list changes. */
function listsChangesOf(params: unknown): boolean {
  return (params as { notifications?: { resourcesListChanged?: unknown } } | undefined)
    ?.notifications?.resourcesListChanged === true;
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

/** A JSON-RPC error answered in-band (HTTP 200), as the SDK refuses a listen itself. */
function inBand(id: unknown, code: number, message: string): Response {
  return Response.json({ jsonrpc: "2.0", id, error: { code, message } }, { status: 200 });
}
