/**
 * The one bus for changes others may listen for (a project created, a post, a handoff): a store
 * or tool publishes a topic, and whoever listens (an MCP session that can carry notifications)
 * is told. A notice says "read again", never what changed, so a listener that misses one loses
 * nothing it cannot read back. Nothing runs when no one listens.
 *
 * In-process by itself; once `connect`ed to KV, topics written by any process on the same
 * database reach this process's listeners too (`notice_feed.ts`): a write bumps its topics' keys
 * in its own atomic and calls `committed` once it lands.
 */

import type { Caller } from "./caller.ts";
import { AppError } from "./errors.ts";
import { type FeedMode, KvNoticeFeed } from "./notice_feed.ts";
import {
  DEFAULT_NOTICE_SETTINGS,
  NOTICE_SETTING_OF,
  type NoticeSettings,
} from "./notice_settings.ts";

/** Topic: the list of resources may have changed (a project was created). */
export const RESOURCE_LIST_CHANGED = "resources/list_changed";

/**
 * A topic made from its parts (a toolset's name, a kind, then ids, workspaces and names): the
 * JSON of the array, an injective encoding, so no part's text can make two topics one. Joined
 * with `/`, a caller named `shop/bob` in workspace `acme` would hear `bob` of `acme/shop`.
 */
export function noticeTopic(...parts: readonly string[]): string {
  return JSON.stringify(parts);
}

/** Called with the topic published. */
export type NoticeListener = (topic: string) => void;

/**
 * What a toolset tells the bus about its resource URIs: which topic tells of a change to one
 * (for this caller: a participant's own waiting items are its own topic), or `undefined`. The
 * listening path (`notice_listening.ts`) resolves a client's subscriptions with it.
 */
export interface UriTopics {
  /** The URI templates it knows, for the error a URI nobody knows gets. */
  templates: readonly string[];
  /**
   * `connector` is the query of the URL the client connected to (what it chose there, such as
   * memory's `?graph=`), when it connected by URL.
   */
  topicOf(uri: string, caller: Caller, connector?: URLSearchParams): string | undefined;
}

/** Publishes topics to the listeners of this process, and across processes once connected. */
export class NoticeBus {
  #listeners = new Map<string, Set<NoticeListener>>();
  #count = 0;
  #settings: NoticeSettings;
  #feed: KvNoticeFeed | undefined;

  constructor(settings: NoticeSettings = DEFAULT_NOTICE_SETTINGS) {
    this.#settings = settings;
  }

  /**
   * Follows the notice keys on `kv` for every topic listened to, by `mode` (see `feedModeOf`),
   * with `settings` from then on. The first connection stays: later calls change nothing.
   */
  connect(kv: Deno.Kv, mode: FeedMode, settings: NoticeSettings = this.#settings): void {
    if (this.#feed !== undefined) return;
    this.#settings = settings;
    if (mode === "none") return;
    this.#feed = new KvNoticeFeed(kv, mode, settings.pollMs, (topic) => this.#tell(topic));
    for (const topic of this.#listeners.keys()) this.#feed.add(topic);
  }

  /** Tells this process's listeners of `topic` (a change only this process can make). */
  publish(topic: string): void {
    this.#tell(topic);
  }

  /**
   * A write that bumped `topics` (`bumpNotices`) landed at `versionstamp`: tells the listeners
   * here now. Other processes hear it from their feed; this one's feed will not repeat it.
   */
  committed(topics: Iterable<string>, versionstamp: string): void {
    for (const topic of new Set(topics)) {
      if (!this.#listeners.has(topic)) continue;
      if (this.#feed !== undefined && !this.#feed.advance(topic, versionstamp)) continue;
      this.#tell(topic);
    }
  }

  /**
   * Listens to `topic` until the returned function is called (calling it twice is harmless).
   * Over `NOTICE_LISTENERS_MAX` listeners or `NOTICE_TOPICS_MAX` topics it throws, naming them.
   */
  listen(topic: string, listener: NoticeListener): () => void {
    const s = this.#settings;
    if (this.#count >= s.listenersMax) {
      throw new AppError(
        "full",
        `This server holds at most ${s.listenersMax} listeners (${NOTICE_SETTING_OF.listenersMax}) and all are taken: stop listening elsewhere, try again later, or ask its owner to raise ${NOTICE_SETTING_OF.listenersMax}`,
      );
    }
    let listeners = this.#listeners.get(topic);
    if (listeners === undefined) {
      if (this.#listeners.size >= s.topicsMax) {
        throw new AppError(
          "full",
          `This server watches at most ${s.topicsMax} topics (${NOTICE_SETTING_OF.topicsMax}) and all are taken: listen to fewer resources, try again later, or ask its owner to raise ${NOTICE_SETTING_OF.topicsMax}`,
        );
      }
      this.#listeners.set(topic, listeners = new Set());
      this.#feed?.add(topic);
    }
    const own = (t: string) => listener(t);
    listeners.add(own);
    this.#count++;
    return () => {
      if (!listeners.delete(own)) return;
      this.#count--;
      if (listeners.size === 0 && this.#listeners.get(topic) === listeners) {
        this.#listeners.delete(topic);
        this.#feed?.remove(topic);
      }
    };
  }

  /** Throws naming `NOTICE_URIS_MAX` when one connection or stream would hold `total` URIs. */
  checkUris(total: number): void {
    const max = this.#settings.urisMax;
    if (total <= max) return;
    throw new AppError(
      "full",
      `At most ${max} resources can be listened to at once (${NOTICE_SETTING_OF.urisMax}), got ${total}: listen to fewer, or unsubscribe from some first`,
    );
  }

  /** Throws naming `NOTICE_STREAMS_MAX` when `open` listen streams already reach it. */
  checkStreams(open: number): void {
    const max = this.#settings.streamsMax;
    if (open < max) return;
    throw new AppError(
      "full",
      `This server holds at most ${max} subscription streams (${NOTICE_SETTING_OF.streamsMax}) and all are open: close one, try again later, or ask its owner to raise ${NOTICE_SETTING_OF.streamsMax}`,
    );
  }

  /** How many listen to `topic` now (every topic without one). */
  listeners(topic?: string): number {
    return topic === undefined ? this.#count : this.#listeners.get(topic)?.size ?? 0;
  }

  /** Resolves once every topic listened to has been read once from KV (tests, benchmarks). */
  ready(): Promise<void> {
    return this.#feed?.ready() ?? Promise.resolve();
  }

  /** Stops following KV (shutdown); listeners here are still told of this process's writes. */
  close(): void {
    this.#feed?.close();
  }

  #tell(topic: string): void {
    const listeners = this.#listeners.get(topic);
    if (listeners === undefined) return;
    for (const listener of [...listeners]) {
      try {
        listener(topic);
      } catch {
        // A listener's failure (a closed session) is its own: the others are still told.
      }
    }
  }
}
