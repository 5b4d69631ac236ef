/** A small route table: paths after the token, with `:name` segments, and a handler per method. */

import type { Route } from "../kit/web.ts";

/** A route found for a path, with its parameters. */
export interface RouteMatch {
  route: Route;
  params: Record<string, string>;
}

/** Routes in order, their patterns split once (a request then splits only its own path). */
export class RouteTable {
  readonly #routes: { route: Route; pattern: string[] }[];

  constructor(routes: readonly Route[]) {
    this.#routes = routes.map((route) => ({ route, pattern: route.path.split("/") }));
  }

  /** The first route matching `path` and its parameters, or `undefined`. */
  match(path: string): RouteMatch | undefined {
    if (this.#routes.length === 0) return undefined;
    const parts = path.split("/");
    for (const { route, pattern } of this.#routes) {
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
}
