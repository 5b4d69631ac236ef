/** The owner console's settings: who the owner is, the secret they sign in with, session life. */

import type { Config } from "../config.ts";
import { ownerNameVar } from "../kit/caller.ts";
import { type EnvSource, intVar } from "../kit/env.ts";
import { MIN_OWNER_SECRET_LENGTH } from "../oauth/settings.ts";

/** What the console reads from the environment, validated. */
export interface ConsoleSettings {
  /**
   * The secret the sign-in form asks for: `OAUTH_OWNER_SECRET`, else `AUTH_TOKEN` as configured
   * (never a generated one), at least 16 characters. `undefined` turns the console off.
   */
  ownerSecret: string | undefined;
  /** Which variable holds it, for the sign-in page's label. */
  secretName: "OAUTH_OWNER_SECRET" | "AUTH_TOKEN";
  /** The person's name on everything they do here (`OWNER_NAME`, default `owner`). */
  ownerName: string;
  /** How long a sign-in lasts (`CONSOLE_SESSION_HOURS`, default 12), in ms. */
  sessionMs: number;
  /** Largest chat export the import form takes (`CONSOLE_IMPORT_MAX_BYTES`, default 1 GiB). */
  importMaxBytes: number;
}

/** Default `CONSOLE_SESSION_HOURS`. */
export const DEFAULT_SESSION_HOURS = 12;

/** Reads the console settings; throws an `Error` naming a bad variable. */
export function loadConsoleSettings(env: EnvSource, config: Config): ConsoleSettings {
  const ownerName = ownerNameVar(env);
  const fromOAuth = config.oauth.ownerSecret;
  const secret = fromOAuth ?? config.authToken;
  return {
    ownerSecret: secret !== undefined && secret.length >= MIN_OWNER_SECRET_LENGTH
      ? secret
      : undefined,
    secretName: fromOAuth !== undefined ? "OAUTH_OWNER_SECRET" : "AUTH_TOKEN",
    ownerName,
    sessionMs: intVar(env, "CONSOLE_SESSION_HOURS", DEFAULT_SESSION_HOURS, 1, 24 * 30) * 3_600_000,
    importMaxBytes: intVar(env, "CONSOLE_IMPORT_MAX_BYTES", 2 ** 30, 2 ** 20, 2 ** 36),
  };
}
