/**
 * Environment → typed server configuration. Each toolset reads its own settings in its folder
 * (`src/<toolset>/settings.ts`).
 */

import { join } from "node:path";
import { type EnvSource, intVar } from "./kit/env.ts";

export type { EnvSource } from "./kit/env.ts";

/** Everything the server reads from its environment, validated. */
export interface Config {
  port: number;
  host: string;
  /** KV path for `Deno.openKv`; `undefined` means the platform default (Deno Deploy's database). */
  kvPath: string | undefined;
  /** The secret in URL paths and bearer headers; `undefined` until generated locally. */
  authToken: string | undefined;
  /** Running on Deno Deploy, where a missing or bad token closes every route. */
  onDeploy: boolean;
  /** What is wrong with `AUTH_TOKEN` on Deno Deploy (where it closes the server, not crash it). */
  tokenProblem?: string;
  /** Extra `Host`/`Origin` host names accepted when bound to loopback (for tunnels). */
  allowedHosts: string[];
  /** Interval of keep-alive comments on legacy SSE streams. */
  sseKeepAliveMs: number;
  /** Largest HTTP request body accepted, in bytes. */
  maxRequestBytes: number;
}

/** Shortest `AUTH_TOKEN` accepted on Deno Deploy. */
export const MIN_DEPLOY_TOKEN_LENGTH = 32;
/** Where the embedded KV lives when `KV_PATH` is unset locally. */
export const DEFAULT_KV_PATH = "./data/handoff.kv";

/**
 * Reads and validates the configuration; throws an `Error` naming the bad variable. The default
 * KV file is placed under `baseDir` (the project folder), so an HTTP server started there and a
 * stdio server started by a desktop client from any folder share one database.
 */
export function loadConfig(env: EnvSource, baseDir = "."): Config {
  const onDeploy = Boolean(env.get("DENO_DEPLOYMENT_ID"));
  const rawToken = env.get("AUTH_TOKEN") || undefined;
  const tokenProblem = rawToken !== undefined && !/^[A-Za-z0-9._~-]+$/.test(rawToken)
    ? "AUTH_TOKEN must use only URL-safe characters (A-Z a-z 0-9 . _ ~ -) because it is a path segment"
    : undefined;
  if (tokenProblem && !onDeploy) throw new Error(tokenProblem);
  const token = tokenProblem ? undefined : rawToken;
  const host = env.get("HOST") || "127.0.0.1";
  if (!/^([A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*|\[?[0-9A-Fa-f:.]+\]?)$/.test(host)) {
    throw new Error(
      `HOST must be a host name or IP address such as 127.0.0.1 or 0.0.0.0, got "${host}"`,
    );
  }
  const kvPath = env.get("KV_PATH") || (onDeploy ? undefined : join(baseDir, DEFAULT_KV_PATH));
  return {
    port: intVar(env, "PORT", 8787, 0, 65535),
    host,
    kvPath,
    authToken: token,
    onDeploy,
    tokenProblem,
    allowedHosts: listVar(env.get("ALLOWED_HOSTS")),
    sseKeepAliveMs: intVar(env, "SSE_KEEPALIVE_MS", 15_000, 100, 3_600_000),
    maxRequestBytes: intVar(env, "MAX_REQUEST_BYTES", 4 * 1024 * 1024, 1024, 64 * 1024 * 1024),
  };
}

/** Why the server must refuse every request, or `undefined` when it may serve. */
export function closedReason(config: Config): string | undefined {
  if (!config.onDeploy) return undefined;
  if (config.tokenProblem) return config.tokenProblem;
  if (config.authToken === undefined) {
    return "AUTH_TOKEN is not set: on Deno Deploy it is required (at least 32 characters)";
  }
  if (config.authToken.length < MIN_DEPLOY_TOKEN_LENGTH) {
    return `AUTH_TOKEN is too short: on Deno Deploy it must be at least ${MIN_DEPLOY_TOKEN_LENGTH} characters`;
  }
  return undefined;
}

function listVar(raw: string | undefined): string[] {
  return (raw ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "");
}
