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

/** How the streams are served. */
export interface ListenOptions {
  maxRequestBytes: number;
  /** How often an idle stream gets a keepalive comment (`SSE_KEEPALIVE_MS`). */
  keepAliveMs: number;
}

/** The open listen streams of one process. */
export class ListenStreams {
  readonly #app: McpApp;
  readonly #options: ListenOptions;
  readonly #open = new Set<McpHttpHandler>();

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
    const id = (parsed as { id?: unknown }).id ?? null;
    const max = this.#app.notices.settings.streamsMax;
    if (this.#open.size >= max) {
      return inBand(
        id,
        -32603,
        `This server holds at most ${max} subscription streams (${NOTICE_SETTING_OF.streamsMax}) and all are open: close one, try again later, or ask its owner to raise ${NOTICE_SETTING_OF.streamsMax}`,
      );
    }
    let deliver: ((event: ServerEvent) => void) | undefined;
    let stop = () => {};
    const uris = resourceSubscriptionsOf((parsed as { params?: unknown }).params);
    if (uris.length > 0) {
      try {
        const caller = this.#app.callerOf(authInfo);
        stop = this.#app.listen(toolsets, uris, caller, (uri) => {
          deliver?.({ kind: "resource_updated", uri });
        });
      } catch (error) {
        const refused = protocolErrorOf(error);
        return inBand(id, refused.code, refused.message);
      }
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
          this.#open.delete(handler);
        };
      },
    };
    const handler = createMcpHandler(
      () =>
        this.#app.requestServer(toolsets, {
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
    const response = await handler.fetch(req, { authInfo, parsedBody: parsed });
    // The SDK subscribes while it builds the stream: no subscription means no stream (a refusal,
    // or a filter it honours nothing of), and nothing may stay held for it.
    if (deliver === undefined) stop();
    else if (!ended) this.#open.add(handler);
    return response;
  }

  /** Ends every stream gracefully (shutdown): each client gets its listen request's result. */
  async close(): Promise<void> {
    const open = [...this.#open];
    this.#open.clear();
    await Promise.all(open.map((handler) => handler.close()));
  }
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
