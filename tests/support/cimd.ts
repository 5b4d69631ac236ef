/** Client ID metadata documents served on loopback, as a client's own web server would. */

import { REDIRECT_URI } from "./oauth.ts";

/** What a document path answers: a JSON value, or a whole response. */
export type Served = unknown | (() => Response);

/** A loopback document server: set what a path answers, count its fetches. */
export interface DocumentHost {
  origin: string;
  /** The URL of `path` on this host. */
  url(path: string): string;
  /** Serves `value` (JSON, `application/json`) or the response `value()` makes at `path`. */
  set(path: string, value: Served): void;
  /** How many times `path` was fetched. */
  fetches(path: string): number;
  close(): Promise<void>;
}

/** Starts a document host on a free loopback port. */
export function documentHost(): DocumentHost {
  const served = new Map<string, Served>();
  const counts = new Map<string, number>();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const path = new URL(req.url).pathname;
    counts.set(path, (counts.get(path) ?? 0) + 1);
    if (!served.has(path)) return new Response("not found", { status: 404 });
    const value = served.get(path);
    if (typeof value === "function") return (value as () => Response)();
    return Response.json(value, { headers: { "cache-control": "max-age=300" } });
  });
  const origin = `http://127.0.0.1:${server.addr.port}`;
  return {
    origin,
    url: (path) => `${origin}${path}`,
    set: (path, value) => void served.set(path, value),
    fetches: (path) => counts.get(path) ?? 0,
    close: () => server.shutdown(),
  };
}

/** A valid document for the client whose id is `clientId`. */
export function clientDocument(
  clientId: string,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    client_id: clientId,
    client_name: "Doc App",
    redirect_uris: [REDIRECT_URI],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
    ...overrides,
  };
}
