/** Starting and stopping the HTTP server. */

import type { Config } from "../config.ts";
import type { Toolset } from "../mcp/toolset.ts";
import { ensureAuthToken } from "../kit/settings.ts";
import { createHandler } from "./handler.ts";
import { defaultCaller } from "../mcp/caller.ts";

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
 * Serves HTTP on the configured host and port (0 picks a free port). Locally, a missing
 * `AUTH_TOKEN` is replaced by one generated once and kept in KV. `options.now` is the OAuth
 * server's clock, for tests.
 */
export async function startHttpServer(
  config: Config,
  kv: Deno.Kv,
  toolsets: readonly Toolset[],
  options: { now?: () => number } = {},
): Promise<RunningServer> {
  const token = config.authToken ?? (config.onDeploy ? undefined : await ensureAuthToken(kv));
  const handler = createHandler({
    kv,
    config,
    toolsets,
    token,
    caller: defaultCaller(config),
    now: options.now,
  });
  const listening = Promise.withResolvers<Deno.NetAddr>();
  const onListen = (addr: Deno.Addr) => listening.resolve(addr as Deno.NetAddr);
  // Deno Deploy chooses the address itself.
  const server = config.onDeploy
    ? Deno.serve({ onListen }, handler)
    : Deno.serve({ hostname: config.host, port: config.port, onListen }, handler);
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
