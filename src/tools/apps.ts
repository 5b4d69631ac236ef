/** MCP Apps views: self-contained HTML served as `ui://` resources that tools link to. */

import type { ToolRegistrar } from "./registry.ts";
import type { Icon } from "./sdk.ts";

/** The MIME type MCP Apps hosts render. */
export { MCP_APP_MIME } from "./app_mime.ts";
import { MCP_APP_MIME } from "./app_mime.ts";

/** One view: its resource name and URI, what people see of it, and its HTML. */
export interface AppView {
  name: string;
  uri: string;
  title: string;
  description: string;
  html: string;
  /** The icons hosts show for the view (its toolset's). */
  icons: Icon[];
}

/** The `_meta` a tool carries to link its view, under the current and the older host keys. */
export function viewMeta(uri: string): Record<string, unknown> {
  return { ui: { resourceUri: uri }, "ui/resourceUri": uri };
}

/**
 * A view is the same HTML for every caller and changes only with a new version of the server, so
 * 2026-07-28 clients (and shared caches) may keep a read of it for a while.
 */
export const VIEW_CACHE_HINT = { ttlMs: 10 * 60 * 1000, cacheScope: "public" as const };

/** Serves `view` as a `ui://` resource. */
export function registerAppView(server: ToolRegistrar, view: AppView): void {
  const meta = { ui: { prefersBorder: true } };
  server.registerResource(view.name, view.uri, {
    title: view.title,
    description: view.description,
    icons: view.icons,
    mimeType: MCP_APP_MIME,
    _meta: meta,
    cacheHint: VIEW_CACHE_HINT,
  }, (uri) => ({
    contents: [{ uri: uri.href, mimeType: MCP_APP_MIME, text: view.html, _meta: meta }],
  }));
}
