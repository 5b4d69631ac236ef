/** Environment → typed configuration. Every limit and default of the server is named here. */

import { join } from "node:path";

/** The toolsets this build can serve, in the order their tools are registered. */
export const TOOLSET_NAMES = ["focus", "thinking"] as const;
/** One toolset name. */
export type ToolsetName = typeof TOOLSET_NAMES[number];

/** Limits of the focus toolset. */
export interface FocusLimits {
  /** Longest project id, in characters. */
  projectIdMax: number;
  /** Longest north star, focus statement, why or task body, in characters. */
  textMax: number;
  /** Most open follow-ups (cleanup and record tasks) one project may hold. */
  openFollowUpsMax: number;
  /** Largest page of list_projects. */
  listPageMax: number;
}

/** Limits of the thinking toolset. */
export interface ThinkingLimits {
  /** Longest thought, in characters (Unicode code points) of any script. */
  thoughtMax: number;
  /** Largest thoughtNumber, totalThoughts, revisesThought or branchFromThought. */
  numberMax: number;
  /** Longest branch id, in characters. */
  branchIdMax: number;
  /** Most branches one sequence may hold. */
  branchesMax: number;
  /** Most thoughts one sequence may hold. */
  thoughtsPerSequenceMax: number;
  /** Largest and default page of get_thought_history, in thoughts. */
  historyPageMax: number;
  historyPageDefault: number;
  /** Largest and default budget of thought text in one history page, in characters. */
  historyCharactersMax: number;
  historyCharactersDefault: number;
  /** Milliseconds a sequence lives after its last write; 0 keeps it until deleted. */
  retentionMs: number;
}

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
  toolsets: ToolsetName[];
  /** Extra `Host`/`Origin` host names accepted when bound to loopback (for tunnels). */
  allowedHosts: string[];
  /** Interval of keep-alive comments on legacy SSE streams. */
  sseKeepAliveMs: number;
  /** Largest HTTP request body accepted, in bytes. */
  maxRequestBytes: number;
  focus: FocusLimits;
  thinking: ThinkingLimits;
}

/** Shortest `AUTH_TOKEN` accepted on Deno Deploy. */
export const MIN_DEPLOY_TOKEN_LENGTH = 32;
/** Where the embedded KV lives when `KV_PATH` is unset locally. */
export const DEFAULT_KV_PATH = "./data/handoff.kv";

/** Default focus limits. */
export const DEFAULT_FOCUS_LIMITS: FocusLimits = {
  projectIdMax: 128,
  textMax: 4000,
  openFollowUpsMax: 500,
  listPageMax: 100,
};

/** Default thinking limits (retention 0: keep every sequence until it is deleted). */
export const DEFAULT_THINKING_LIMITS: ThinkingLimits = {
  thoughtMax: 20_000,
  numberMax: 1_000_000,
  branchIdMax: 64,
  branchesMax: 200,
  thoughtsPerSequenceMax: 10_000,
  historyPageMax: 100,
  historyPageDefault: 50,
  historyCharactersMax: 250_000,
  historyCharactersDefault: 60_000,
  retentionMs: 0,
};

/** Longest `THOUGHT_RETENTION_DAYS` accepted (ten years). */
export const MAX_RETENTION_DAYS = 3650;
const DAY_MS = 86_400_000;

/** Anything with `get`, so tests can pass a `Map` and `main.ts` passes `Deno.env`. */
export interface EnvSource {
  get(name: string): string | undefined;
}

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
    toolsets: parseToolsets(env.get("TOOLSETS"), "TOOLSETS"),
    allowedHosts: listVar(env.get("ALLOWED_HOSTS")),
    sseKeepAliveMs: intVar(env, "SSE_KEEPALIVE_MS", 15_000, 100, 3_600_000),
    maxRequestBytes: intVar(env, "MAX_REQUEST_BYTES", 4 * 1024 * 1024, 1024, 64 * 1024 * 1024),
    focus: {
      ...DEFAULT_FOCUS_LIMITS,
      openFollowUpsMax: intVar(env, "FOCUS_OPEN_FOLLOWUPS_MAX", 500, 1, 10_000),
    },
    thinking: {
      ...DEFAULT_THINKING_LIMITS,
      retentionMs: intVar(env, "THOUGHT_RETENTION_DAYS", 0, 0, MAX_RETENTION_DAYS) * DAY_MS,
    },
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

/** Parses a comma list of toolsets; `undefined` or empty means all of them. */
export function parseToolsets(raw: string | undefined, what: string): ToolsetName[] {
  const names = listVar(raw);
  if (names.length === 0) return [...TOOLSET_NAMES];
  for (const name of names) {
    if (!(TOOLSET_NAMES as readonly string[]).includes(name)) {
      throw new Error(
        `${what} has unknown toolset "${name}": allowed are ${TOOLSET_NAMES.join(", ")}`,
      );
    }
  }
  return TOOLSET_NAMES.filter((name) => names.includes(name));
}

function listVar(raw: string | undefined): string[] {
  return (raw ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "");
}

function intVar(env: EnvSource, name: string, fallback: number, min: number, max: number): number {
  const raw = env.get(name);
  if (raw === undefined || raw.trim() === "") return fallback;
  if (!/^\d+$/.test(raw.trim())) {
    throw new Error(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  const value = Number(raw.trim());
  if (value < min || value > max) {
    throw new Error(`${name} must be a whole number from ${min} to ${max}, got ${value}`);
  }
  return value;
}
