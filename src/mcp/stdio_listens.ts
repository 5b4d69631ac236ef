/**
 * The 2026-07-28 `subscriptions/listen` requests of one stdio connection. The SDK serves the
 * listen itself (acknowledges it, and stamps each change notice the connection's server sends
 * with the ids of the listens that name its URI); this watches the same messages on our
 * transport to know which URIs to follow on the notice bus, answers a refused one (a URI no
 * toolset tells of, a limit) before the SDK sees it, and lets go when a listen is cancelled, is
 * answered with an error, or the connection ends. A listen never counts as a request in flight:
 * it is answered only when the connection closes.
 */

import type { Caller } from "../kit/caller.ts";
import type { JSONRPCMessage } from "./sdk.ts";
import {
  type ConnectionSubscriptions,
  protocolErrorOf,
  resourceSubscriptionsOf,
} from "./subscriptions.ts";

/** The protocol-version key of the 2026-07-28 per-request `_meta` envelope. */
const VERSION_KEY = "io.modelcontextprotocol/protocolVersion";

type Id = string | number;

/** The listens of one stdio connection. */
export class StdioListens {
  readonly #subscriptions: ConnectionSubscriptions;
  readonly #caller: Caller;
  readonly #ids = new Set<Id>();

  constructor(subscriptions: ConnectionSubscriptions, caller: Caller) {
    this.#subscriptions = subscriptions;
    this.#caller = caller;
  }

  /** Whether `message` is a 2026 listen request (answered only when the connection closes). */
  isListen(message: JSONRPCMessage): boolean {
    return listenOf(message) !== undefined;
  }

  /**
   * A message from the client, before the SDK sees it: the error to answer instead of handing
   * it on (a refused listen), or `undefined` to hand it on.
   */
  inbound(message: JSONRPCMessage): JSONRPCMessage | undefined {
    const listen = listenOf(message);
    if (listen !== undefined) {
      const uris = resourceSubscriptionsOf(listen.params);
      if (uris.length === 0) return undefined;
      try {
        this.#subscriptions.add(holderOf(listen.id), uris, this.#caller);
      } catch (error) {
        const refused = protocolErrorOf(error);
        return {
          jsonrpc: "2.0",
          id: listen.id,
          error: { code: refused.code, message: refused.message },
        };
      }
      this.#ids.add(listen.id);
    } else if ("method" in message && message.method === "notifications/cancelled") {
      const id = (message.params as { requestId?: Id } | undefined)?.requestId;
      if (id !== undefined) this.#end(id);
    }
    return undefined;
  }

  /** A message to the client: an answer to a listen (an error, the close) ends it. */
  outbound(message: JSONRPCMessage): void {
    if (!("method" in message) && "id" in message && message.id !== undefined) {
      this.#end(message.id as Id);
    }
  }

  /** The connection ended: nothing stays held. */
  close(): void {
    this.#ids.clear();
    this.#subscriptions.close();
  }

  #end(id: Id): void {
    if (!this.#ids.delete(id)) return;
    this.#subscriptions.remove(holderOf(id));
  }
}

function holderOf(id: Id): string {
  return `listen:${typeof id}:${id}`;
}

/** `message` as a 2026 listen request (it carries that revision's envelope), or `undefined`. */
function listenOf(message: JSONRPCMessage): { id: Id; params: unknown } | undefined {
  const m = message as { method?: unknown; id?: unknown; params?: { _meta?: unknown } };
  if (m.method !== "subscriptions/listen") return undefined;
  if (typeof m.id !== "string" && typeof m.id !== "number") return undefined;
  const meta = m.params?._meta;
  if (typeof meta !== "object" || meta === null || !(VERSION_KEY in meta)) return undefined;
  return { id: m.id, params: m.params };
}
