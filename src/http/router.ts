/** A small route table: paths after the token, with `:name` segments, and a handler per method. */

import type { Route } from "../kit/web.ts";

/** The route matching `path` and its parameters, or `undefined`. */
export function matchRoute(
  routes: readonly Route[],
  path: string,
): { route: Route; params: Record<string, string> } | undefined {
  const parts = path.split("/");
  for (const route of routes) {
    const pattern = route.path.split("/");
    if (pattern.length !== parts.length) continue;
    const params: Record<string, string> = {};
    let ok = true;
    for (let i = 0; i < pattern.length && ok; i++) {
      if (pattern[i].startsWith(":")) {
        try {
          params[pattern[i].slice(1)] = decodeURIComponent(parts[i]);
        } catch {
          ok = false;
        }
        ok &&= parts[i] !== "";
      } else {
        ok = pattern[i] === parts[i];
      }
    }
    if (ok) return { route, params };
  }
  return undefined;
}
