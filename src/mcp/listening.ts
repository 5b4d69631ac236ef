/**
 * The one listening path, the same on every transport. A 2026-07-28 HTTP `subscriptions/listen`
 * stream (`http/listen_streams.ts`), a legacy SSE session and a stdio connection (2025
 * `resources/subscribe` and 2026 listens alike) each keep ONE `Listening` on the process's
 * notice bus (`kit/notices.ts`). It checks what may be listened to (a URI some toolset tells of,
 * its topic for this caller, the limits, each naming its setting), holds a URI once however
 * many subscriptions name it, refuses in one shape (`refusalOf`) and tells the client in the
 * SDK's own event shape (`ServerEvent`): the HTTP stream hands it to the SDK's listen router, a
 * connection server sends it as a notification (on a 2026 stdio connection the SDK stamps each
 * listen's subscription id on it).
 */

import type { Caller } from "../kit/caller.ts";
import { AppError } from "../kit/errors.ts";
import { type NoticeBus, RESOURCE_LIST_CHANGED, type UriTopics } from "../kit/notices.ts";
import { NOTICE_SETTING_OF } from "../kit/notice_settings.ts";
import { speedOn } from "../kit/speed_switches.ts";
import { callerOf } from "../tools/caller.ts";
import {
  type JSONRPCMessage,
  type McpServer,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
  type ServerEvent,
} from "./sdk.ts";
import type { McpDeps } from "../tools/toolset.ts";

/** A JSON-RPC request id. */
type Id = string | number;

/** The key of resource-list changes among the held URIs: no URI a client sends can be it. */
const LISTS = Symbol("resource list");

/** A held URI, or the resource-list changes. */
type Key = string | typeof LISTS;

/** What one connection or stream listens to; `close` leaves nothing behind. */
export class Listening {
  readonly #bus: NoticeBus;
  readonly #known: readonly UriTopics[];
  /** Each URI (or the list changes) held on the bus, and which subscriptions name it. */
  readonly #held = new Map<Key, { stop: () => void; holders: Set<string> }>();
  /** The keys changed since the last delivery (see `#changed`). */
  readonly #due = new Set<Key>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #tell: ((event: ServerEvent) => void) | undefined;
  #closed = false;

  /** `known`: what the connection's toolsets tell the bus about their resource URIs. */
  constructor(bus: NoticeBus, known: readonly UriTopics[]) {
    this.#bus = bus;
    this.#known = known;
  }

  /** Whether any resource here tells of changes (else nothing can be subscribed to). */
  get subscribable(): boolean {
    return this.#known.length > 0;
  }

  /** How many distinct URIs are held (resource-list changes not counted). */
  get size(): number {
    return this.#held.size - (this.#held.has(LISTS) ? 1 : 0);
  }

  /** Where changes go from now on: a connection's newest server, a stream the SDK opened. */
  deliverTo(tell: (event: ServerEvent) => void): void {
    this.#tell = tell;
  }

  /**
   * `holder` (a stream, a 2026 listen's id, the 2025 subscriptions) listens to `uris` as
   * `caller` and, with `lists`, to resource-list changes. All or nothing: a URI no toolset here
   * tells of, more than `NOTICE_URIS_MAX` URIs held, or a limit of the bus throws (an
   * `AppError`) and changes nothing. `connector` is the query of the URL the client connected
   * to (memory's `?graph=`).
   */
  add(
    holder: string,
    uris: readonly string[],
    caller: Caller,
    options: { lists?: boolean; connector?: URLSearchParams } = {},
  ): void {
    if (this.#closed) throw new AppError("invalid", "This connection is closed");
    const fresh = [...new Set(uris)].filter((uri) => !this.#held.has(uri));
    const max = this.#bus.settings.urisMax;
    const total = this.size + fresh.length;
    if (total > max) {
      throw new AppError(
        "full",
        `At most ${max} resources can be listened to at once (${NOTICE_SETTING_OF.urisMax}), got ${total}: listen to fewer, or unsubscribe from some first`,
      );
    }
    const wanted: [Key, string][] = fresh.map((uri) => [
      uri,
      topicOf(this.#known, uri, caller, options.connector),
    ]);
    if (options.lists && !this.#held.has(LISTS)) wanted.push([LISTS, RESOURCE_LIST_CHANGED]);
    const started: [Key, () => void][] = [];
    try {
      for (const [key, topic] of wanted) {
        started.push([key, this.#bus.listen(topic, () => this.#changed(key))]);
      }
    } catch (error) {
      for (const [, stop] of started) stop();
      throw error;
    }
    for (const [key, stop] of started) this.#held.set(key, { stop, holders: new Set() });
    const named: Key[] = options.lists ? [...uris, LISTS] : [...uris];
    for (const key of named) {
      this.#held.get(key)?.holders.add(holder);
    }
  }

  /** `holder` stops listening to `uris` (to everything it holds when none are named). */
  remove(holder: string, uris?: readonly string[]): void {
    // Most connections hold nothing: a stdio connection lets go of each answer's id here.
    for (const [key, held] of this.#held) {
      if (uris !== undefined && (key === LISTS || !uris.includes(key))) continue;
      held.holders.delete(holder);
      if (held.holders.size > 0) continue;
      held.stop();
      this.#held.delete(key);
    }
  }

  /** Stops every listener (the connection or stream ended); later calls to `add` are refused. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#due.clear();
    for (const held of this.#held.values()) held.stop();
    this.#held.clear();
  }

  /**
   * The one delivery rule, the same on every transport: a change is told a macrotask later,
   * each URI once however often it changed meanwhile. A write tells the bus while it commits,
   * on the writer's own path, and writing to every listener then delays the writer's answer
   * (`deno task bench live`, switch `notice_defer`: with 100 listen streams a post took 1.8×
   * its time told at once, 2.0× a microtask later, 0.9–1.1× a macrotask later); a notice means
   * "read again", so one per burst loses
   * nothing. A connection that answers a tool call first tells what is due before the answer
   * (`flush`), so an answer never overtakes a change its client was due to hear.
   */
  #changed(key: Key): void {
    // The bench turns the wait off (`notice_defer`) to show what it earns.
    const deferred = speedOn("notice_defer");
    if (this.#due.size === 0 && deferred) this.#timer = setTimeout(() => this.flush(), 0);
    this.#due.add(key);
    if (!deferred) this.flush();
  }

  /** Tells what changed since the last delivery, now (see `#changed`). */
  flush(): void {
    if (this.#due.size === 0) return;
    clearTimeout(this.#timer);
    const keys = [...this.#due];
    this.#due.clear();
    for (const key of keys) {
      // A URI let go of since it changed is not told.
      if (!this.#held.has(key)) continue;
      try {
        this.#tell?.(
          key === LISTS
            ? { kind: "resources_list_changed" }
            : { kind: "resource_updated", uri: key },
        );
      } catch {
        // A client that went away is its own failure: nothing else is owed to it.
      }
    }
  }
}

/** The topic `uri` tells of for `caller`; throws naming the URIs that can be listened to. */
function topicOf(
  known: readonly UriTopics[],
  uri: string,
  caller: Caller,
  connector: URLSearchParams | undefined,
): string {
  for (const u of known) {
    const topic = u.topicOf(uri, caller, connector);
    if (topic !== undefined) return topic;
  }
  const templates = known.flatMap((u) => u.templates);
  throw new AppError(
    "invalid",
    `Cannot listen to ${uri}: ${
      templates.length === 0
        ? "no resource of this server tells of changes"
        : `the resources that tell of changes are ${templates.join(", ")}`
    }`,
  );
}

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
  if (listening.subscribable) {
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
 * URIs on the connection's `listening` under the listen's id, answers a refused one before the
 * SDK sees it, and lets go when one is cancelled or answered (an error, the close).
 */
export class StdioListens {
  readonly #listening: Listening;
  readonly #caller: Caller;

  constructor(listening: Listening, caller: Caller) {
    this.#listening = listening;
    this.#caller = caller;
  }

  /**
   * Whether `message` is a 2026 listen request (it carries that revision's envelope): answered
   * only when the connection closes, so never a request in flight.
   */
  isListen(message: JSONRPCMessage): message is JSONRPCMessage & { id: Id; params: object } {
    const m = message as { method?: unknown; id?: unknown; params?: { _meta?: object } };
    return m.method === "subscriptions/listen" && (typeof m.id === "string" ||
      typeof m.id === "number") &&
      typeof m.params?._meta === "object" &&
      m.params._meta !== null && "io.modelcontextprotocol/protocolVersion" in m.params._meta;
  }

  /** A message from the client: the refusal to answer instead of handing it on, if any. */
  inbound(message: JSONRPCMessage): JSONRPCMessage | undefined {
    if (this.isListen(message)) {
      try {
        this.#listening.add(holderOf(message.id), filterOf(message.params).uris, this.#caller);
      } catch (error) {
        return refusalOf(message.id, error) as JSONRPCMessage;
      }
    } else if ("method" in message && message.method === "notifications/cancelled") {
      const id = (message.params as { requestId?: Id } | undefined)?.requestId;
      if (id !== undefined) this.#listening.remove(holderOf(id));
    }
    return undefined;
  }

  /** A message to the client: an answer to a listen (an error, the close) ends it. */
  outbound(message: JSONRPCMessage): void {
    if (!("method" in message) && "id" in message && message.id !== undefined) {
      this.#listening.remove(holderOf(message.id));
    }
  }

  /** The connection ended: nothing stays held. */
  close(): void {
    this.#listening.close();
  }
}

/** The holder of a 2026 listen's URIs: its request id (a number and a string are two). */
function holderOf(id: Id): string {
  return `listen:${typeof id}:${id}`;
}
