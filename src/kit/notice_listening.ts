/**
 * What one connection or listen stream listens to on the notice bus (`notices.ts`), the same
 * whatever carries it: each URI resolved to its topic for the caller (`uriTopic`), held once
 * however many subscriptions name it, all or nothing within the limits (each naming its
 * setting), and told by one delivery rule. The MCP side (`mcp/listening.ts`) serves it on every
 * transport; the events it tells are the SDK's own `ServerEvent` shape.
 */

import type { Caller } from "./caller.ts";
import { AppError } from "./errors.ts";
import { type NoticeBus, RESOURCE_LIST_CHANGED, type UriTopics } from "./notices.ts";
import { speedOn } from "./speed_switches.ts";

/** A change told to a listener, in the shape of the SDK's `ServerEvent` (kit imports no SDK). */
export type NoticeEvent =
  | { kind: "resource_updated"; uri: string }
  | { kind: "resources_list_changed" };

/** The key of resource-list changes among the held URIs: no URI a client sends can be it. */
const LISTS = Symbol("resource list");

/** A held URI, or the resource-list changes. */
type Key = string | typeof LISTS;

/** What one connection or stream listens to; `close` leaves nothing behind. */
export class Listening {
  /** Each URI (or the list changes) held on the bus, and which subscriptions name it. */
  readonly #held = new Map<Key, { stop: () => void; holders: Set<string> }>();
  /** The keys changed since the last delivery (see `#changed`). */
  readonly #due = new Set<Key>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #tell: ((event: NoticeEvent) => void) | undefined;
  #closed = false;

  /** `known`: what the connection's toolsets tell the bus about their resource URIs. */
  constructor(readonly bus: NoticeBus, readonly known: readonly UriTopics[]) {}

  /** How many distinct URIs are held (resource-list changes not counted). */
  get size(): number {
    return this.#held.size - (this.#held.has(LISTS) ? 1 : 0);
  }

  /** Where changes go from now on: a connection's newest server, a stream the SDK opened. */
  deliverTo(tell: (event: NoticeEvent) => void): void {
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
    this.bus.checkUris(this.size + fresh.length);
    const wanted = fresh.map((uri): [Key, string] => [
      uri,
      uriTopic(this.known, uri, caller, options.connector),
    ]);
    if (options.lists && !this.#held.has(LISTS)) wanted.push([LISTS, RESOURCE_LIST_CHANGED]);
    const started: [Key, () => void][] = [];
    try {
      for (const [key, topic] of wanted) {
        started.push([key, this.bus.listen(topic, () => this.#changed(key))]);
      }
    } catch (error) {
      for (const [, stop] of started) stop();
      throw error;
    }
    for (const [key, stop] of started) this.#held.set(key, { stop, holders: new Set() });
    for (const key of options.lists ? [...uris, LISTS] as Key[] : uris) {
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

/**
 * The topic `uri` tells of for `caller`, by what the toolsets reached tell of their URIs
 * (`known`); throws naming the URIs that can be listened to.
 */
function uriTopic(
  known: readonly UriTopics[],
  uri: string,
  caller: Caller,
  connector?: URLSearchParams,
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
