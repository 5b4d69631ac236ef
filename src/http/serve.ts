/** Starting and stopping the HTTP server. */

import { type Config, MIN_DEPLOY_TOKEN_LENGTH } from "../config.ts";
import type { Toolset } from "../tools/toolset.ts";
import type { NoticeBus } from "../kit/notices.ts";
import { ensureAuthToken } from "../kit/settings.ts";
import { plain, type Route } from "../kit/web.ts";
import { settlesWithin } from "../kit/time.ts";
import { defaultCaller } from "../tools/caller.ts";
import { isLoopback } from "./auth.ts";
import { createHandler, type Handler } from "./handler.ts";

/** A listening server. */
export interface RunningServer {
  /** Base URL, e.g. `http://127.0.0.1:8787`. */
  origin: string;
  /** The token in effect, or `undefined` when the server is closed for lack of one. */
  token: string | undefined;
  /** Where a client connects over Streamable HTTP. */
  mcpUrl: string;
  /**
   * Stops accepting, lets requests in flight finish for at most `SHUTDOWN_GRACE_MS`; resolves
   * when they have (or the time is up), after which KV may be closed.
   */
  shutdown(): Promise<void>;
  /** Resolves when the server has stopped, or when `shutdown()` gave up waiting. */
  finished: Promise<void>;
}

/**
 * HTTP/1.1 requires `Host`, and without one the loopback guard would have no name to check (an
 * HTTP/1.0 request may omit it). Deploy's edge always routes by host, so this is local only.
 */
const NO_HOST = () => plain(400, "Bad Request: the Host header is missing");

/**
 * Why a local server must not start with its configured token, or `undefined`: beyond loopback
 * the token is all that guards the data (the Host/Origin guard is off), so it must be long.
 * Deno Deploy is handled by `closedReason`, which fails closed instead.
 */
function exposureProblem(config: Config): string | undefined {
  if (config.onDeploy || isLoopback(config.host)) return undefined;
  const min = MIN_DEPLOY_TOKEN_LENGTH;
  const beyond = `a server listening beyond loopback (HOST=${config.host}) needs at least ${min}`;
  const token = config.authToken;
  if (token !== undefined && token.length < min) {
    return `AUTH_TOKEN is too short (${token.length} characters): ${beyond}; unset it to use ` +
      `the generated one, or set a random one (openssl rand -base64 32 | tr '+/' '-_' | tr -d '=')`;
  }
  const short = config.namedTokens.find((t) => t.token.length < min);
  if (short !== undefined) {
    return `AUTH_TOKENS token of "${short.name}" is too short (${short.token.length} ` +
      `characters): ${beyond}`;
  }
  return undefined;
}

/**
 * Serves HTTP on the configured host and port (0 picks a free port). Locally, a missing
 * `AUTH_TOKEN` is replaced by one generated once and kept in KV. `options.now` is the OAuth
 * server's clock, for tests; `options.routes` are routes beyond the toolsets' (the console), and
 * `options.notices` the process's notice bus when those routes write on it too.
 */
export async function startHttpServer(
  config: Config,
  kv: Deno.Kv,
  toolsets: readonly Toolset[],
  options: { now?: () => number; routes?: Route[]; notices?: NoticeBus } = {},
): Promise<RunningServer> {
  const exposed = exposureProblem(config);
  if (exposed !== undefined) throw new Error(exposed);
  const token = config.authToken ?? (config.onDeploy ? undefined : await ensureAuthToken(kv));
  const handler = createHandler({
    kv,
    config,
    toolsets,
    token,
    caller: defaultCaller(config),
    ...options,
  });
  const listening = Promise.withResolvers<Deno.NetAddr>();
  const onListen = (addr: Deno.Addr) => listening.resolve(addr as Deno.NetAddr);
  // Deno Deploy chooses the address itself, and its edge always sends a Host.
  const server = config.onDeploy
    ? Deno.serve({ onListen }, handler)
    : Deno.serve({ hostname: config.host, port: config.port, onListen }, (req, info) =>
      // The connection info carries the client's address (OAuth counts failed sign-ins by it).
      req.headers.has("host") ? handler(req, info) : NO_HOST());
  const addr = await listening.promise;
  const host = addr.hostname.includes(":") ? `[${addr.hostname}]` : addr.hostname;
  const origin = `http://${host}:${addr.port}`;
  const stopped = Promise.withResolvers<void>();
  let stopping: Promise<void> | undefined;
  return {
    origin,
    token,
    mcpUrl: `${origin}/${token ?? "<AUTH_TOKEN>"}/mcp`,
    finished: Promise.race([server.finished, stopped.promise]),
    shutdown() {
      stopping ??= drain(server, handler, config.shutdownGraceMs).then(stopped.resolve);
      return stopping;
    },
  };
}

/**
 * Stops accepting connections and SSE messages, then waits until every request in flight (and
 * every SSE request already accepted) is answered, for at most `graceMs`.
 */
async function drain(server: Deno.HttpServer, handler: Handler, graceMs: number): Promise<void> {
  if (!await settlesWithin(Promise.all([handler.close(), server.shutdown()]), graceMs)) {
    console.error(
      `handoff-mcp: requests still running after SHUTDOWN_GRACE_MS (${graceMs} ms): stopping without them`,
    );
  }
}
