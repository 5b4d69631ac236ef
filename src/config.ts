/** Environment → typed configuration. Every limit and default of the server is named here. */

import { join } from "node:path";
import { clientNameProblem } from "./kit/caller.ts";

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

/** Limits of the handoff toolset; all sizes of text are UTF-8 bytes unless named chars. */
export interface HandoffLimits {
  /** Largest conversation, in UTF-8 bytes (`HANDOFF_CONVERSATION_MAX_BYTES`). */
  conversationMaxBytes: number;
  /** Largest summary, in UTF-8 bytes (`HANDOFF_SUMMARY_MAX_BYTES`). */
  summaryMaxBytes: number;
  /** Longest title, in characters (`HANDOFF_TITLE_MAX_CHARS`). */
  titleMaxChars: number;
  /** Longest key, in characters of `[A-Za-z0-9_-]` (`HANDOFF_KEY_MAX_CHARS`). */
  keyMaxChars: number;
  /** Most tags on one handoff (`HANDOFF_TAGS_MAX`). */
  tagsMax: number;
  /** Longest tag, in characters of `[a-z0-9_:-]` (`HANDOFF_TAG_MAX_CHARS`). */
  tagMaxChars: number;
  /** Most comments on one handoff (`HANDOFF_COMMENTS_MAX`). */
  commentsMax: number;
  /** Largest comment, in UTF-8 bytes (`HANDOFF_COMMENT_MAX_BYTES`). */
  commentMaxBytes: number;
  /** Most handoffs the store keeps (`HANDOFF_MAX_COUNT`). */
  maxHandoffs: number;
  /** When full, evict the oldest handoff (true) or refuse the save (false) (`HANDOFF_EVICT`). */
  evictWhenFull: boolean;
  /** Most source handoffs one merge takes (`HANDOFF_MERGE_MAX_SOURCES`). */
  mergeSourcesMax: number;
  /** Longest `from_ai`, `author`, in characters. */
  nameMaxChars: number;
  /** Longest `from_project`, in characters. */
  projectMaxChars: number;
  /** Longest `next_action`, in characters. */
  nextActionMaxChars: number;
  /** Largest page of handoff_list and handoff_search. */
  listPageMax: number;
}

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
  /** The caller name of HTTP requests that name nobody (`DEFAULT_CLIENT_NAME`, default `owner`). */
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
  focus: FocusLimits;
  thinking: ThinkingLimits;
  handoff: HandoffLimits;
  /** File the handoff toolset appends JSON-lines audit records to; `undefined` = no audit log. */
  handoffAuditLog: string | undefined;
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

/** Default handoff limits. */
export const DEFAULT_HANDOFF_LIMITS: HandoffLimits = {
  conversationMaxBytes: 1024 * 1024,
  summaryMaxBytes: 10 * 1024,
  titleMaxChars: 200,
  keyMaxChars: 100,
  tagsMax: 20,
  tagMaxChars: 50,
  commentsMax: 50,
  commentMaxBytes: 10 * 1024,
  maxHandoffs: 1000,
  evictWhenFull: true,
  mergeSourcesMax: 10,
  nameMaxChars: 100,
  projectMaxChars: 200,
  nextActionMaxChars: 1000,
  listPageMax: 100,
};

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
  const named = namedTokens(env.get("AUTH_TOKENS"), onDeploy);
  const reused = named.find((t) => t.token === token);
  if (reused) {
    throw new Error(`AUTH_TOKENS gives "${reused.name}" the same token as AUTH_TOKEN`);
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
    namedTokens: named,
    defaultClientName: clientNameVar(env, "DEFAULT_CLIENT_NAME") ?? "owner",
    clientName: clientNameVar(env, "CLIENT_NAME"),
    sseKeepAliveMs: intVar(env, "SSE_KEEPALIVE_MS", 15_000, 100, 3_600_000),
    sseMaxSessions: intVar(env, "SSE_MAX_SESSIONS", DEFAULT_SSE_MAX_SESSIONS, 1, 100_000),
    sseIdleMs: intVar(env, "SSE_IDLE_MS", DEFAULT_SSE_IDLE_MS, 100, 7 * 86_400_000),
    shutdownGraceMs: intVar(env, "SHUTDOWN_GRACE_MS", DEFAULT_SHUTDOWN_GRACE_MS, 0, 600_000),
    maxRequestBytes: intVar(env, "MAX_REQUEST_BYTES", 4 * 1024 * 1024, 1024, 64 * 1024 * 1024),
    focus: {
      ...DEFAULT_FOCUS_LIMITS,
      openFollowUpsMax: intVar(env, "FOCUS_OPEN_FOLLOWUPS_MAX", 500, 1, 10_000),
    },
    thinking: {
      ...DEFAULT_THINKING_LIMITS,
      retentionMs: intVar(env, "THOUGHT_RETENTION_DAYS", 0, 0, MAX_RETENTION_DAYS) * DAY_MS,
    },
    handoff: handoffLimits(env),
    handoffAuditLog: env.get("HANDOFF_AUDIT_LOG") || undefined,
  };
}

/**
 * Reads the handoff limits. The upper bounds keep one handoff's record under Deno KV's 64 KiB
 * value limit (text is stored as UTF-16 there) and a merge's atomic under its key-size budget.
 */
function handoffLimits(env: EnvSource): HandoffLimits {
  const d = DEFAULT_HANDOFF_LIMITS;
  return {
    ...d,
    conversationMaxBytes: intVar(
      env,
      "HANDOFF_CONVERSATION_MAX_BYTES",
      d.conversationMaxBytes,
      1024,
      8 * 1024 * 1024,
    ),
    summaryMaxBytes: intVar(env, "HANDOFF_SUMMARY_MAX_BYTES", d.summaryMaxBytes, 100, 20_000),
    titleMaxChars: intVar(env, "HANDOFF_TITLE_MAX_CHARS", d.titleMaxChars, 10, 1000),
    keyMaxChars: intVar(env, "HANDOFF_KEY_MAX_CHARS", d.keyMaxChars, 8, 200),
    tagsMax: intVar(env, "HANDOFF_TAGS_MAX", d.tagsMax, 0, 50),
    tagMaxChars: intVar(env, "HANDOFF_TAG_MAX_CHARS", d.tagMaxChars, 1, 100),
    commentsMax: intVar(env, "HANDOFF_COMMENTS_MAX", d.commentsMax, 0, 500),
    commentMaxBytes: intVar(env, "HANDOFF_COMMENT_MAX_BYTES", d.commentMaxBytes, 100, 20_000),
    maxHandoffs: intVar(env, "HANDOFF_MAX_COUNT", d.maxHandoffs, 1, 100_000),
    evictWhenFull: boolVar(env, "HANDOFF_EVICT", d.evictWhenFull),
    mergeSourcesMax: intVar(env, "HANDOFF_MERGE_MAX_SOURCES", d.mergeSourcesMax, 2, 10),
  };
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

function boolVar(env: EnvSource, name: string, fallback: boolean): boolean {
  const raw = env.get(name)?.trim().toLowerCase();
  if (raw === undefined || raw === "") return fallback;
  if (["1", "true", "yes", "on"].includes(raw)) return true;
  if (["0", "false", "no", "off"].includes(raw)) return false;
  throw new Error(`${name} must be true or false (also 1/0, yes/no, on/off), got "${raw}"`);
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
