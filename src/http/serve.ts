/** Starting and stopping the HTTP server. */

import type { Config } from "../config.ts";
import type { Toolset } from "../mcp/toolset.ts";
import { ensureAuthToken } from "../kit/settings.ts";
import { plain } from "../kit/web.ts";
import { createHandler } from "./handler.ts";

/** A listening server. */
export interface RunningServer {
  /** Base URL, e.g. `http://127.0.0.1:8787`. */
  origin: string;
  /** The token in effect, or `undefined` when the server is closed for lack of one. */
  token: string | undefined;
  /** Where a client connects over Streamable HTTP. */
  mcpUrl: string;
  shutdown(): Promise<void>;
  finished: Promise<void>;
}

/**
 * HTTP/1.1 requires `Host`, and without one the loopback guard would have no name to check (an
 * HTTP/1.0 request may omit it). Deploy's edge always routes by host, so this is local only.
 */
const NO_HOST = () => plain(400, "Bad Request: the Host header is missing");

/**
 * Serves HTTP on the configured host and port (0 picks a free port). Locally, a missing
 * `AUTH_TOKEN` is replaced by one generated once and kept in KV.
 */
export async function startHttpServer(
  config: Config,
  kv: Deno.Kv,
  toolsets: readonly Toolset[],
): Promise<RunningServer> {
  const token = config.authToken ?? (config.onDeploy ? undefined : await ensureAuthToken(kv));
  const handler = createHandler({ kv, config, toolsets, token });
  const serve = (req: Request) => req.headers.has("host") ? handler(req) : NO_HOST();
  const listening = Promise.withResolvers<Deno.NetAddr>();
  const onListen = (addr: Deno.Addr) => listening.resolve(addr as Deno.NetAddr);
  // Deno Deploy chooses the address itself.
  const server = config.onDeploy
    ? Deno.serve({ onListen }, handler)
    : Deno.serve({ hostname: config.host, port: config.port, onListen }, serve);
  const addr = await listening.promise;
  const host = addr.hostname.includes(":") ? `[${addr.hostname}]` : addr.hostname;
  const origin = `http://${host}:${addr.port}`;
  return {
    origin,
    token,
    mcpUrl: `${origin}/${token ?? "<AUTH_TOKEN>"}/mcp`,
    finished: server.finished,
    async shutdown() {
      await handler.close();
      await server.shutdown();
    },
  };
}
