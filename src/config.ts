/**
 * Environment → typed server configuration. Each toolset reads its own settings in its folder
 * (`src/<toolset>/settings.ts`).
 */

import { join } from "node:path";
import { clientNameProblem, DEFAULT_UNNAMED_CALLER, ownerNameVar, sameName } from "./kit/caller.ts";
import { resultMaxCharsVar, resultMaxTokensVar } from "./kit/budget.ts";
import { type EnvSource, intVar } from "./kit/env.ts";
import { type AdmissionSettings, loadAdmissionSettings } from "./http/admission.ts";
import { loadNoticeSettings, type NoticeSettings } from "./kit/notice_settings.ts";
import {
  loadOAuthSettings,
  MIN_OWNER_SECRET_LENGTH,
  type OAuthSettings,
} from "./oauth/settings.ts";

export type { EnvSource } from "./kit/env.ts";

/** Everything the server reads from its environment, validated. */
export interface Config {
  port: number;
  host: string;
  /** KV path for `Deno.openKv`; `undefined` means the platform default (Deno Deploy's database). */
  kvPath: string | undefined;
  /** The secret in URL paths and bearer headers; `undefined` until generated locally. */
  authToken: string | undefined;
  /**
   * Named tokens (`AUTH_TOKENS="codex=<token>,manus=<token>"`): each is accepted beside
   * `AUTH_TOKEN`, in the path and as bearer, and names its holder.
   */
  namedTokens: NamedToken[];
  /**
   * The caller name of HTTP requests that name nobody (`DEFAULT_CLIENT_NAME`, default
   * `anonymous`); never `OWNER_NAME`.
   */
  defaultClientName: string;
  /** The caller name of a stdio server (`CLIENT_NAME`); `undefined` uses the default name. */
  clientName: string | undefined;
  /** Running on Deno Deploy, where a missing or bad token closes every route. */
  onDeploy: boolean;
  /** What is wrong with `AUTH_TOKEN` on Deno Deploy (where it closes the server, not crash it). */
  tokenProblem?: string;
  /** Extra `Host`/`Origin` host names accepted when bound to loopback (for tunnels). */
  allowedHosts: string[];
  /** Interval of keep-alive comments on legacy SSE streams. */
  sseKeepAliveMs: number;
  /** Most legacy SSE sessions one process keeps open (`SSE_MAX_SESSIONS`). */
  sseMaxSessions: number;
  /** A legacy SSE session with no POST and no request in flight this long is closed (`SSE_IDLE_MS`). */
  sseIdleMs: number;
  /** How long a stopping server waits for requests in flight before it closes KV (`SHUTDOWN_GRACE_MS`). */
  shutdownGraceMs: number;
  /** Largest HTTP request body accepted, in bytes. */
  maxRequestBytes: number;
  /** `WRITE_BUDGET_BYTES`, `WRITE_WAIT_MS`: large bodies in flight at once (`http/admission.ts`). */
  admission: AdmissionSettings;
  /** OAuth sign-in for hosted clients (`OAUTH=on`), read in `oauth/settings.ts`. */
  oauth: OAuthSettings;
  /** `NOTICE_*`: the notice bus's limits and poll interval (`kit/notice_settings.ts`). */
  notices: NoticeSettings;
  /** `RESULT_MAX_TOKENS`: the estimated tokens each view of a tool result may take (`kit/budget.ts`). */
  resultMaxTokens: number;
  /** `RESULT_MAX_CHARS`: the characters each view of a tool result may take (`kit/budget.ts`). */
  resultMaxChars: number;
  /**
   * `IDLE_COLLECT_MIB`: heap growth after which a server that falls idle collects its garbage at
   * once (`idle_collect.ts`); 0 leaves it to V8.
   */
  idleCollectMiB: number;
}

/** One entry of `AUTH_TOKENS`: a token and the name of whoever holds it. */
export interface NamedToken {
  name: string;
  token: string;
}

/** Shortest `AUTH_TOKEN` accepted on Deno Deploy. */
export const MIN_DEPLOY_TOKEN_LENGTH = 32;
/** Default `SSE_MAX_SESSIONS`. */
export const DEFAULT_SSE_MAX_SESSIONS = 100;
/** Default `SSE_IDLE_MS` (30 minutes). */
export const DEFAULT_SSE_IDLE_MS = 30 * 60_000;
/** Default `SHUTDOWN_GRACE_MS`. */
export const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;
/** Default `IDLE_COLLECT_MIB`: the heap of a started server is about 30 MiB. */
const DEFAULT_IDLE_COLLECT_MIB = 32;
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
  const named = namedTokens(env.get("AUTH_TOKENS"), onDeploy);
  const reused = named.find((t) => t.token === token);
  if (reused) {
    throw new Error(`AUTH_TOKENS gives "${reused.name}" the same token as AUTH_TOKEN`);
  }
  const kvPath = env.get("KV_PATH") || (onDeploy ? undefined : join(baseDir, DEFAULT_KV_PATH));
  const oauth = loadOAuthSettings(env);
  // Without OAUTH_OWNER_SECRET the consent page, reachable by anyone, asks for AUTH_TOKEN. On
  // Deploy a short token already closes the server (closedReason).
  if (
    oauth.enabled && oauth.ownerSecret === undefined && token !== undefined && !onDeploy &&
    token.length < MIN_OWNER_SECRET_LENGTH
  ) {
    throw new Error(
      `OAUTH=on asks for AUTH_TOKEN on the consent page when OAUTH_OWNER_SECRET is unset, and ` +
        `AUTH_TOKEN is ${token.length} characters: use at least ${MIN_OWNER_SECRET_LENGTH}, or set ` +
        "OAUTH_OWNER_SECRET",
    );
  }
  return {
    port: intVar(env, "PORT", 8787, 0, 65535),
    host,
    kvPath,
    authToken: token,
    onDeploy,
    tokenProblem,
    allowedHosts: listVar(env.get("ALLOWED_HOSTS")),
    namedTokens: named,
    defaultClientName: defaultClientName(env),
    clientName: clientNameVar(env, "CLIENT_NAME"),
    sseKeepAliveMs: intVar(env, "SSE_KEEPALIVE_MS", 15_000, 100, 3_600_000),
    sseMaxSessions: intVar(env, "SSE_MAX_SESSIONS", DEFAULT_SSE_MAX_SESSIONS, 1, 100_000),
    sseIdleMs: intVar(env, "SSE_IDLE_MS", DEFAULT_SSE_IDLE_MS, 100, 7 * 86_400_000),
    shutdownGraceMs: intVar(env, "SHUTDOWN_GRACE_MS", DEFAULT_SHUTDOWN_GRACE_MS, 0, 600_000),
    maxRequestBytes: intVar(env, "MAX_REQUEST_BYTES", 4 * 1024 * 1024, 1024, 64 * 1024 * 1024),
    admission: loadAdmissionSettings(env),
    oauth,
    notices: loadNoticeSettings(env),
    resultMaxTokens: resultMaxTokensVar(env),
    resultMaxChars: resultMaxCharsVar(env),
    idleCollectMiB: intVar(env, "IDLE_COLLECT_MIB", DEFAULT_IDLE_COLLECT_MIB, 0, 65_536),
  };
}

/**
 * `DEFAULT_CLIENT_NAME`, refused when it is the owner's name: whoever connects without a name
 * would otherwise be taken for the person.
 */
function defaultClientName(env: EnvSource): string {
  const name = clientNameVar(env, "DEFAULT_CLIENT_NAME") ?? DEFAULT_UNNAMED_CALLER;
  const owner = ownerNameVar(env);
  if (sameName(name, owner)) {
    throw new Error(
      `DEFAULT_CLIENT_NAME and OWNER_NAME are both "${name}": a client that names nobody would be taken for the owner. Give DEFAULT_CLIENT_NAME another name (default ${DEFAULT_UNNAMED_CALLER}) or OWNER_NAME the person's`,
    );
  }
  return name;
}

/** Shortest named token accepted: a token is a password, and these are typed by people. */
export const MIN_NAMED_TOKEN_LENGTH = 16;

/**
 * Parses `AUTH_TOKENS` (`name=token,name=token`). Names follow the client-name rules and are
 * distinct ignoring case; tokens are URL-safe (they go in the path), distinct, at least 16
 * characters (32 on Deno Deploy, like `AUTH_TOKEN`).
 */
function namedTokens(raw: string | undefined, onDeploy: boolean): NamedToken[] {
  const min = onDeploy ? MIN_DEPLOY_TOKEN_LENGTH : MIN_NAMED_TOKEN_LENGTH;
  const out: NamedToken[] = [];
  for (const entry of listVar(raw)) {
    const eq = entry.indexOf("=");
    if (eq <= 0) {
      throw new Error(
        `AUTH_TOKENS entries must look like name=token (e.g. codex=<token>,manus=<token>), got an entry without a name`,
      );
    }
    const name = entry.slice(0, eq).trim();
    const token = entry.slice(eq + 1).trim();
    const problem = clientNameProblem(name, `AUTH_TOKENS name "${name}"`);
    if (problem) throw new Error(problem);
    if (!/^[A-Za-z0-9._~-]+$/.test(token)) {
      throw new Error(
        `AUTH_TOKENS token of "${name}" must use only URL-safe characters (A-Z a-z 0-9 . _ ~ -)`,
      );
    }
    if (token.length < min) {
      throw new Error(`AUTH_TOKENS token of "${name}" must be at least ${min} characters`);
    }
    if (out.some((t) => t.name.toLowerCase() === name.toLowerCase())) {
      throw new Error(`AUTH_TOKENS names "${name}" twice (names are compared ignoring case)`);
    }
    if (out.some((t) => t.token === token)) {
      throw new Error(`AUTH_TOKENS gives "${name}" the same token as another name`);
    }
    out.push({ name, token });
  }
  return out;
}

/** A client name from the environment, checked like an `X-Client-Name`; unset or empty → undefined. */
function clientNameVar(env: EnvSource, name: string): string | undefined {
  const raw = env.get(name)?.trim();
  if (raw === undefined || raw === "") return undefined;
  const problem = clientNameProblem(raw, name);
  if (problem) throw new Error(problem);
  return raw;
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
