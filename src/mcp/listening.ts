/**
 * The one listening path, the same on every transport. A 2026-07-28 HTTP `subscriptions/listen`
 * stream (`http/listen_streams.ts`), a legacy SSE session and a stdio connection (2025
 * `resources/subscribe` and 2026 listens alike) each keep ONE `Listening` on the process's
 * notice bus (`kit/notice_listening.ts`: a URI resolved to its topic for the caller, held once
 * however many subscriptions name it, within the limits, each naming its setting, and told by
 * one delivery rule). This is its MCP side: one refusal shape (`refusalOf`), the listen filter,
 * a connection server's subscriptions (`serveConnection`) and a stdio connection's 2026 listens
 * (`StdioListens`). Changes are told in the SDK's own event shape (`ServerEvent`): the HTTP
 * stream hands them to the SDK's listen router, a connection server sends them as notifications
 * (on a 2026 stdio connection the SDK stamps each listen's subscription id on them).
 */

import type { Caller } from "../kit/caller.ts";
import { AppError } from "../kit/errors.ts";
import type { Listening } from "../kit/notice_listening.ts";
import { callerOf } from "../tools/caller.ts";
import type { McpDeps } from "../tools/toolset.ts";
import {
  type JSONRPCMessage,
  type McpServer,
  PROTOCOL_VERSION_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
} from "./sdk.ts";

/** A JSON-RPC request id. */
type Id = string | number;

/**
 * The one refusal shape, on every transport: invalid params for a URI that tells of no changes,
 * an internal error (the SDK's own code for "Subscription limit reached") for a limit. The
 * message is ours and names the setting.
 */
export function refusalOf(id: Id | null, error: unknown) {
  const full = !(error instanceof AppError) || error.kind === "full";
  const code = full ? ProtocolErrorCode.InternalError : ProtocolErrorCode.InvalidParams;
  const message = error instanceof AppError ? error.message : "The subscription failed";
  return { jsonrpc: "2.0" as const, id, error: { code, message } };
}

/** What a `subscriptions/listen` request's filter names (the SDK checks the rest). */
export function filterOf(params: unknown): { uris: string[]; lists: boolean } {
  const n = (params as { notifications?: Record<string, unknown> } | undefined)?.notifications;
  const uris = Array.isArray(n?.resourceSubscriptions) ? n.resourceSubscriptions : [];
  return {
    uris: uris.filter((u): u is string => typeof u === "string"),
    lists: n?.resourcesListChanged === true,
  };
}

/** The holders of a connection's resource-list changes and its 2025 subscriptions. */
const CONNECTION = "connection";
const SUBSCRIBED = "resources/subscribe";

/**
 * Serves a connection server's notices through `listening`, the connection's (stdio keeps one
 * for its servers; `owned`, one the server made, stops when the server closes): the resource
 * list changed (a project created: clients such as Gemini CLI read `resources/list` once and
 * would never see it), when `lists`, and 2025 `resources/subscribe` / `unsubscribe`. The caller
 * is the request's (an SSE session's), else the process default (stdio's local user).
 */
export function serveConnection(
  server: McpServer,
  listening: Listening,
  deps: McpDeps,
  options: { lists: boolean; owned: boolean },
): void {
  // The server made last is the connection's (a probe the SDK drops is never told again);
  // before its connection opens there is no one to tell.
  listening.deliverTo((event) => {
    if (!server.isConnected()) return;
    void (event.kind === "resource_updated"
      ? server.server.sendResourceUpdated({ uri: event.uri })
      : server.server.sendResourceListChanged()).catch(() => {});
  });
  if (options.lists) {
    server.server.registerCapabilities({ resources: { listChanged: true } });
    listening.add(CONNECTION, [], deps.caller, { lists: true });
  }
  if (listening.known.length > 0) {
    server.server.registerCapabilities({ resources: { subscribe: true } });
    server.server.setRequestHandler("resources/subscribe", (request, ctx: ServerContext) => {
      // An SSE session's POSTs carry its connector URL's query (see http/sse.ts).
      const url = (ctx as { http?: { req?: Request } }).http?.req?.url;
      const connector = url === undefined ? undefined : new URL(url).searchParams;
      try {
        listening.add(SUBSCRIBED, [request.params.uri], callerOf(ctx, deps), { connector });
      } catch (error) {
        const { code, message } = refusalOf(null, error).error;
        throw new ProtocolError(code, message);
      }
      return {};
    });
    server.server.setRequestHandler("resources/unsubscribe", (request) => {
      listening.remove(SUBSCRIBED, [request.params.uri]);
      return {};
    });
  }
  if (!options.owned) return;
  const closed = server.server.onclose;
  server.server.onclose = () => {
    listening.close();
    closed?.();
  };
}

/**
 * The 2026-07-28 listens of one stdio connection, seen on our transport: the SDK serves each
 * (acknowledges it, stamps its id on the notices the connection's server sends); this holds its
 * URIs on the connection's `listening` under the listen's id (its JSON: a number and a string
 * are two, and no id is another holder's name), answers a refused one before the SDK sees it,
 * and lets go when one is cancelled or answered (an error, the close).
 */
export class StdioListens {
  constructor(readonly listening: Listening, readonly caller: Caller) {}

  /**
   * Whether `message` is a 2026 listen request (it carries that revision's envelope): answered
   * only when the connection closes, so never a request in flight.
   */
  isListen(message: JSONRPCMessage): message is JSONRPCMessage & { id: Id; params: object } {
    const m = message as { method?: unknown; id?: unknown; params?: { _meta?: object } };
    return m.method === "subscriptions/listen" &&
      (typeof m.id === "string" || typeof m.id === "number") &&
      PROTOCOL_VERSION_META_KEY in Object(m.params?._meta);
  }

  /** A message from the client: the refusal to answer instead of handing it on, if any. */
  inbound(message: JSONRPCMessage): JSONRPCMessage | undefined {
    if (this.isListen(message)) {
      const { uris } = filterOf(message.params);
      try {
        this.listening.add(JSON.stringify(message.id), uris, this.caller);
      } catch (error) {
        return refusalOf(message.id, error) as JSONRPCMessage;
      }
    } else if ("method" in message && message.method === "notifications/cancelled") {
      const id = (message.params as { requestId?: Id } | undefined)?.requestId;
      if (id !== undefined) this.listening.remove(JSON.stringify(id));
    }
    return undefined;
  }

  /** A message to the client: an answer to a listen (an error, the close) ends it. */
  outbound(message: JSONRPCMessage): void {
    if (!("method" in message) && "id" in message && message.id !== undefined) {
      this.listening.remove(JSON.stringify(message.id));
    }
  }

  /** The connection ended: nothing stays held. */
  close(): void {
    this.listening.close();
  }
}
