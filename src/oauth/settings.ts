/** OAuth settings: env → typed, validated, with every default named here. */

import { clientNameProblem } from "../kit/caller.ts";
import { boolVar, type EnvSource, intVar } from "../kit/env.ts";

/** How the OAuth sign-in behaves; `enabled: false` leaves the server exactly as without it. */
export interface OAuthSettings {
  /** `OAUTH=on` turns the OAuth routes and the 401 challenge on. */
  enabled: boolean;
  /** The secret the consent page asks for (`OAUTH_OWNER_SECRET`); `AUTH_TOKEN` when unset. */
  ownerSecret: string | undefined;
  /** The origin clients reach the server at (`PUBLIC_URL`), e.g. `https://handoff.example`. */
  publicUrl: string | undefined;
  /** Take the origin and client address from `X-Forwarded-*` headers (`TRUST_PROXY`). */
  trustProxy: boolean;
  /** Display names by client id (`CLIENT_NAME_ALIASES="<client_id>=Claude,…"`). */
  aliases: ReadonlyMap<string, string>;
  /** Lifetime of an access token (`OAUTH_ACCESS_TOKEN_TTL_SECONDS`), in ms. */
  accessTtlMs: number;
  /** Lifetime of a refresh token and its grant (`OAUTH_REFRESH_TOKEN_TTL_DAYS`), in ms. */
  refreshTtlMs: number;
  /**
   * How long a rotated refresh token may still be answered once more with the pair it was
   * exchanged for, until that new refresh token is used (`OAUTH_REFRESH_GRACE_SECONDS`), in ms.
   */
  refreshGraceMs: number;
  /** Lifetime of an authorization code (`OAUTH_CODE_TTL_SECONDS`), in ms. */
  codeTtlMs: number;
  /** Lifetime of an unanswered consent form, in ms. */
  consentTtlMs: number;
  /** How long a registered client that was never approved is kept, in ms. */
  unapprovedClientTtlMs: number;
  /** Wrong owner secrets allowed per client and per address in one window (`OAUTH_MAX_FAILED_ATTEMPTS`). */
  maxFailedAttempts: number;
  /**
   * Wrong owner secrets allowed from all addresses together in one window, on the consent page
   * and the console (`OAUTH_MAX_FAILED_ATTEMPTS_TOTAL`): the ceiling address rotation cannot escape.
   */
  maxFailedAttemptsTotal: number;
  /** The window failed attempts and registrations are counted in, in ms. */
  attemptWindowMs: number;
  /** Registrations allowed per address in one window (`OAUTH_MAX_REGISTRATIONS`). */
  maxRegistrations: number;
  /** Registrations allowed from all addresses together in one window (`OAUTH_MAX_REGISTRATIONS_TOTAL`). */
  maxRegistrationsTotal: number;
  /**
   * Consent forms opened, and metadata documents fetched, from all addresses together in one
   * window (`OAUTH_MAX_CONSENT_FORMS_TOTAL`; each also 60 per address).
   */
  maxConsentFormsTotal: number;
  /**
   * For local testing only (`OAUTH_CIMD_ALLOW_LOOPBACK`): a metadata document `client_id` may be
   * on a loopback address, over https or plain http. Private and link-local stay refused.
   */
  cimdAllowLoopback: boolean;
  /** Largest client ID metadata document fetched, in bytes (`OAUTH_CIMD_MAX_BYTES`). */
  cimdMaxBytes: number;
  /** How long fetching a metadata document may take, in ms (`OAUTH_CIMD_TIMEOUT_MS`). */
  cimdTimeoutMs: number;
  /** Longest a fetched metadata document is reused, in ms (`OAUTH_CIMD_CACHE_SECONDS`). */
  cimdCacheMs: number;
}

/** Default access token lifetime: one hour. */
export const DEFAULT_ACCESS_TTL_SECONDS = 3600;
/** Default refresh token lifetime: 30 days. */
export const DEFAULT_REFRESH_TTL_DAYS = 30;
/** Default refresh grace: one minute. */
export const DEFAULT_REFRESH_GRACE_SECONDS = 60;
/** Default authorization code lifetime: one minute. */
export const DEFAULT_CODE_TTL_SECONDS = 60;
/** How long a consent form stays valid: ten minutes. */
export const CONSENT_TTL_MS = 10 * 60_000;
/** How long a registration that never got approved is kept: one day. */
export const UNAPPROVED_CLIENT_TTL_MS = 86_400_000;
/** Default wrong owner secrets per client and per address in one window. */
export const DEFAULT_MAX_FAILED_ATTEMPTS = 5;
/** The window failed attempts and registrations are counted in: fifteen minutes. */
export const ATTEMPT_WINDOW_MS = 15 * 60_000;
/** Default registrations per address in one window. */
export const DEFAULT_MAX_REGISTRATIONS = 20;
/** Default wrong owner secrets from all addresses together in one window. */
export const DEFAULT_MAX_FAILED_ATTEMPTS_TOTAL = 50;
/** Default largest metadata document: 5 KiB, as the CIMD draft suggests. */
export const DEFAULT_CIMD_MAX_BYTES = 5120;
/** Default time a metadata document fetch may take. */
export const DEFAULT_CIMD_TIMEOUT_MS = 5000;
/** Default and longest reuse of a fetched metadata document: one hour. */
export const DEFAULT_CIMD_CACHE_SECONDS = 3600;
/** Default consent forms (and, apart, metadata document fetches) from all addresses in one window. */
export const DEFAULT_MAX_CONSENT_FORMS_TOTAL = 600;
/** Default registrations from all addresses together in one window. */
export const DEFAULT_MAX_REGISTRATIONS_TOTAL = 100;
/**
 * Consent forms one address may open in one window: each stores a pending request, and opening
 * one needs no credentials, only a registered client id.
 */
export const CONSENT_FORMS_MAX = 60;

const DAY_MS = 86_400_000;

/** Reads the OAuth settings from `env`; throws an `Error` naming the bad variable. */
export function loadOAuthSettings(env: EnvSource): OAuthSettings {
  return {
    enabled: boolVar(env, "OAUTH", false),
    ownerSecret: ownerSecret(env.get("OAUTH_OWNER_SECRET")),
    publicUrl: publicUrl(env.get("PUBLIC_URL")),
    trustProxy: boolVar(env, "TRUST_PROXY", false),
    aliases: aliases(env.get("CLIENT_NAME_ALIASES")),
    accessTtlMs:
      intVar(env, "OAUTH_ACCESS_TOKEN_TTL_SECONDS", DEFAULT_ACCESS_TTL_SECONDS, 60, 86_400) *
      1000,
    refreshTtlMs: intVar(env, "OAUTH_REFRESH_TOKEN_TTL_DAYS", DEFAULT_REFRESH_TTL_DAYS, 1, 365) *
      DAY_MS,
    refreshGraceMs:
      intVar(env, "OAUTH_REFRESH_GRACE_SECONDS", DEFAULT_REFRESH_GRACE_SECONDS, 0, 3600) * 1000,
    codeTtlMs: intVar(env, "OAUTH_CODE_TTL_SECONDS", DEFAULT_CODE_TTL_SECONDS, 10, 600) * 1000,
    consentTtlMs: CONSENT_TTL_MS,
    unapprovedClientTtlMs: UNAPPROVED_CLIENT_TTL_MS,
    maxFailedAttempts: intVar(
      env,
      "OAUTH_MAX_FAILED_ATTEMPTS",
      DEFAULT_MAX_FAILED_ATTEMPTS,
      1,
      1000,
    ),
    maxFailedAttemptsTotal: intVar(
      env,
      "OAUTH_MAX_FAILED_ATTEMPTS_TOTAL",
      DEFAULT_MAX_FAILED_ATTEMPTS_TOTAL,
      1,
      100_000,
    ),
    attemptWindowMs: ATTEMPT_WINDOW_MS,
    maxRegistrations: intVar(env, "OAUTH_MAX_REGISTRATIONS", DEFAULT_MAX_REGISTRATIONS, 1, 10_000),
    maxRegistrationsTotal: intVar(
      env,
      "OAUTH_MAX_REGISTRATIONS_TOTAL",
      DEFAULT_MAX_REGISTRATIONS_TOTAL,
      1,
      1_000_000,
    ),
    maxConsentFormsTotal: intVar(
      env,
      "OAUTH_MAX_CONSENT_FORMS_TOTAL",
      DEFAULT_MAX_CONSENT_FORMS_TOTAL,
      1,
      1_000_000,
    ),
    cimdAllowLoopback: boolVar(env, "OAUTH_CIMD_ALLOW_LOOPBACK", false),
    cimdMaxBytes: intVar(env, "OAUTH_CIMD_MAX_BYTES", DEFAULT_CIMD_MAX_BYTES, 512, 65_536),
    cimdTimeoutMs: intVar(env, "OAUTH_CIMD_TIMEOUT_MS", DEFAULT_CIMD_TIMEOUT_MS, 100, 30_000),
    cimdCacheMs: intVar(env, "OAUTH_CIMD_CACHE_SECONDS", DEFAULT_CIMD_CACHE_SECONDS, 0, 86_400) *
      1000,
  };
}

/**
 * Shortest `OAUTH_OWNER_SECRET` accepted: failed tries are limited per app and per address, but
 * new apps and addresses are cheap, so the secret itself must resist guessing.
 */
export const MIN_OWNER_SECRET_LENGTH = 16;

function ownerSecret(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === "") return undefined;
  if (raw.length < MIN_OWNER_SECRET_LENGTH) {
    throw new Error(
      `OAUTH_OWNER_SECRET is too short (${raw.length} characters): use at least ${MIN_OWNER_SECRET_LENGTH}`,
    );
  }
  return raw;
}

function publicUrl(raw: string | undefined): string | undefined {
  if (raw === undefined || raw.trim() === "") return undefined;
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new Error(`PUBLIC_URL must be an origin such as https://handoff.example, got "${raw}"`);
  }
  const bare = url.pathname === "/" && url.search === "" && url.hash === "";
  if (!["https:", "http:"].includes(url.protocol) || !bare || url.username || url.password) {
    throw new Error(
      `PUBLIC_URL must be an origin such as https://handoff.example (no path, query or user), got "${raw}"`,
    );
  }
  return url.origin;
}

function aliases(raw: string | undefined): Map<string, string> {
  const map = new Map<string, string>();
  for (const entry of (raw ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "")) {
    const eq = entry.indexOf("=");
    const id = eq > 0 ? entry.slice(0, eq).trim() : "";
    const name = eq > 0 ? entry.slice(eq + 1).trim() : "";
    if (id === "" || name === "") {
      throw new Error(
        `CLIENT_NAME_ALIASES must be <client_id>=<name> pairs separated by commas, got "${entry}"`,
      );
    }
    // An alias becomes the caller's name: the one client-name check applies.
    const problem = clientNameProblem(name, `CLIENT_NAME_ALIASES name of "${id}"`);
    if (problem) throw new Error(problem);
    map.set(id, name);
  }
  return map;
}
