/**
 * Resource subscriptions: which URIs a session listens to, held on the process's notice bus
 * (`kit/notices.ts`), and the MCP errors a refused subscription gets.
 *
 * A connection that can carry notifications (a legacy SSE session, a stdio connection) keeps
 * one `ConnectionSubscriptions`: its 2025 `resources/subscribe` calls, and on a stdio connection
 * pinned to 2026-07-28 the URIs of each `subscriptions/listen` (the SDK acknowledges the stream
 * and stamps each notice with its subscription id; this says which URI changed). A URI named by
 * several subscriptions of one connection has one bus listener, so a change is told once to
 * each subscription, never twice.
 */

import type { Caller } from "../kit/caller.ts";
import { AppError } from "../kit/errors.ts";
import type { NoticeBus, UriTopics } from "../kit/notices.ts";
import { NOTICE_SETTING_OF } from "../kit/notice_settings.ts";
import { callerOf } from "./caller.ts";
import { type McpServer, ProtocolError, ProtocolErrorCode, type ServerContext } from "./sdk.ts";
import type { McpDeps } from "./toolset.ts";

/** The holder of a connection's 2025 `resources/subscribe` subscriptions. */
const SUBSCRIBED = "resources/subscribe";

/** One URI a connection listens to, and which of its subscriptions name it. */
interface Held {
  stop: () => void;
  holders: Set<string>;
}

/** The subscriptions of one connection; `close` (the connection ended) leaves nothing behind. */
export class ConnectionSubscriptions {
  readonly #bus: NoticeBus;
  readonly #known: readonly UriTopics[];
  readonly #notify: (uri: string) => void;
  readonly #held = new Map<string, Held>();
  #closed = false;

  /** `notify(uri)` tells the connection's client that `uri` changed. */
  constructor(bus: NoticeBus, known: readonly UriTopics[], notify: (uri: string) => void) {
    this.#bus = bus;
    this.#known = known;
    this.#notify = notify;
  }

  /** How many distinct URIs the connection listens to. */
  get size(): number {
    return this.#held.size;
  }

  /**
   * `holder` (a listen request's id, or the 2025 subscriptions) listens to `uris` as `caller`.
   * All or nothing: a URI no toolset of the connection tells of, more than `NOTICE_URIS_MAX`
   * URIs on the connection, or a limit of the bus throws (an `AppError`) and changes nothing.
   */
  add(
    holder: string,
    uris: readonly string[],
    caller: Caller,
    connector?: URLSearchParams,
  ): void {
    if (this.#closed) throw new AppError("invalid", "This connection is closed");
    const fresh = [...new Set(uris)].filter((uri) => !this.#held.has(uri));
    const max = this.#bus.settings.urisMax;
    if (this.#held.size + fresh.length > max) {
      throw new AppError(
        "full",
        `One connection listens to at most ${max} resources (${NOTICE_SETTING_OF.urisMax}); it listens to ${this.#held.size} and asked for ${fresh.length} more: unsubscribe from some first`,
      );
    }
    const stops: [string, () => void][] = [];
    try {
      for (const uri of fresh) {
        const stop = this.#bus.listenUris([uri], caller, this.#notify, this.#known, connector);
        stops.push([uri, stop]);
      }
    } catch (error) {
      for (const [, stop] of stops) stop();
      throw error;
    }
    for (const [uri, stop] of stops) this.#held.set(uri, { stop, holders: new Set() });
    for (const uri of uris) this.#held.get(uri)?.holders.add(holder);
  }

  /** `holder` stops listening to `uris` (all of its URIs when none are named). */
  remove(holder: string, uris?: readonly string[]): void {
    for (const [uri, held] of this.#held) {
      if (uris !== undefined && !uris.includes(uri)) continue;
      held.holders.delete(holder);
      if (held.holders.size > 0) continue;
      held.stop();
      this.#held.delete(uri);
    }
  }

  /** Stops every listener of the connection (it closed); later calls to `add` are refused. */
  close(): void {
    this.#closed = true;
    for (const held of this.#held.values()) held.stop();
    this.#held.clear();
  }
}

/**
 * Serves 2025 `resources/subscribe` and `resources/unsubscribe` on a connection server, and
 * stops its subscriptions when it closes. The caller is the request's (an SSE session's), else
 * the process default (stdio's local user).
 */
export function serveResourceSubscriptions(
  server: McpServer,
  subscriptions: ConnectionSubscriptions,
  deps: McpDeps,
): void {
  server.server.registerCapabilities({ resources: { subscribe: true } });
  server.server.setRequestHandler("resources/subscribe", (request, ctx: ServerContext) => {
    try {
      // An SSE session's POSTs carry its connector URL's query (see http/sse.ts).
      const url = (ctx as { http?: { req?: Request } }).http?.req?.url;
      const connector = url === undefined ? undefined : new URL(url).searchParams;
      subscriptions.add(SUBSCRIBED, [request.params.uri], callerOf(ctx, deps), connector);
    } catch (error) {
      throw protocolErrorOf(error);
    }
    return {};
  });
  server.server.setRequestHandler("resources/unsubscribe", (request) => {
    subscriptions.remove(SUBSCRIBED, [request.params.uri]);
    return {};
  });
}

/**
 * The JSON-RPC error a refused subscription gets: invalid params for a URI that tells of no
 * changes, an internal error (the SDK's own code for "Subscription limit reached") for a limit.
 * The message is ours and names the setting.
 */
export function protocolErrorOf(error: unknown): ProtocolError {
  if (error instanceof AppError) {
    const code = error.kind === "full"
      ? ProtocolErrorCode.InternalError
      : ProtocolErrorCode.InvalidParams;
    return new ProtocolError(code, error.message);
  }
  return new ProtocolError(ProtocolErrorCode.InternalError, "The subscription failed");
}

/** The resource URIs a `subscriptions/listen` request's params name (the SDK checks the rest). */
export function resourceSubscriptionsOf(params: unknown): string[] {
  const uris = (params as { notifications?: { resourceSubscriptions?: unknown } } | undefined)
    ?.notifications?.resourceSubscriptions;
  return Array.isArray(uris) ? uris.filter((u): u is string => typeof u === "string") : [];
}
