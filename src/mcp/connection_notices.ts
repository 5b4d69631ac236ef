/**
 * What a connection server (a stdio connection, a legacy SSE session) is told while it is
 * connected: the resource list changed (a project created), and the resources it subscribed to.
 * A stateless server has no connection to tell.
 */

import { type NoticeBus, RESOURCE_LIST_CHANGED } from "../kit/notices.ts";
import type { McpServer } from "./sdk.ts";
import { type ConnectionSubscriptions, serveResourceSubscriptions } from "./subscriptions.ts";
import type { McpDeps } from "../tools/toolset.ts";

/** What `serveConnectionNotices` serves. */
export interface ConnectionNotices {
  notices: NoticeBus;
  deps: McpDeps;
  /** Whether the server has resources (their list may change). */
  lists: boolean;
  /** Makes the connection's subscriptions, if any of its resources tell of changes. */
  subscriptions?: (notify: (uri: string) => void) => ConnectionSubscriptions;
}

/** Serves list changes and subscriptions on `server` until its connection closes. */
export function serveConnectionNotices(server: McpServer, c: ConnectionNotices): void {
  if (c.lists) announceResourceLists(server, c.notices);
  if (c.subscriptions === undefined) return;
  const subscriptions = c.subscriptions((uri) => {
    void server.server.sendResourceUpdated({ uri }).catch(() => {});
  });
  serveResourceSubscriptions(server, subscriptions, c.deps);
  onClosed(server, () => subscriptions.close());
}

/**
 * Tells a connected session when the resource list may have changed (a project was created):
 * clients such as Gemini CLI read `resources/list` once at connect and would never see it. Only
 * a connection server (stdio, legacy SSE) listens, until its connection closes; on a stdio
 * connection pinned to 2026-07-28 the SDK carries it on the client's `subscriptions/listen`.
 */
function announceResourceLists(server: McpServer, notices: NoticeBus): void {
  server.server.registerCapabilities({ resources: { listChanged: true } });
  // Before its connection opens there is no one to tell; once it closes, `onClosed` stops this.
  const stop = notices.listen(RESOURCE_LIST_CHANGED, () => {
    if (server.isConnected()) server.sendResourceListChanged();
  });
  onClosed(server, stop);
}

/** Calls `done` when `server`'s connection closes (after what was to be called before). */
function onClosed(server: McpServer, done: () => void): void {
  const closed = server.server.onclose;
  server.server.onclose = () => {
    done();
    closed?.();
  };
}
