/**
 * Who is calling: a name and how it was obtained, so a reader can tell a proven name (a named
 * token, OAuth) from a self-chosen label (a header) or a shared default.
 */

import type { EnvSource } from "./env.ts";
import { characterCount, invisibleProblem, lineProblem } from "./text.ts";

/**
 * How a caller's name was established, strongest first; `console` is the owner signed in to the
 * server's own console with the owner secret (never a connection's claim).
 */
export type CallerVia = "console" | "oauth" | "token" | "header" | "local" | "default";

/** The caller of one request, resolved once in `http/` (or per process on stdio). */
export interface Caller {
  name: string;
  via: CallerVia;
  /** The OAuth client id, when the name came from a verified OAuth token. */
  clientId?: string;
}

/** Longest client name, in characters (code points); longer is refused, never cut. */
export const CLIENT_NAME_MAX_CHARS = 140;

/**
 * What is wrong with `name` as a client name, or `undefined` when it is fine: it must be one
 * line of well-formed Unicode, not blank, without control characters, at most 140 characters,
 * without invisible or direction-control characters (`invisibleProblem`).
 * `what` names where it came from (`X-Client-Name`, `CLIENT_NAME`).
 */
export function clientNameProblem(name: string, what: string): string | undefined {
  switch (lineProblem(name, CLIENT_NAME_MAX_CHARS)) {
    case undefined:
      return invisibleProblem(name, what);
    case "lone_surrogate":
      return `${what} is not well-formed Unicode (it holds a lone surrogate)`;
    case "blank":
      return `${what} is blank: give a name such as codex or claude`;
    case "line_break":
    case "control":
      return `${what} must be one line without control characters`;
    case "too_long":
      return `${what} is ${
        characterCount(name)
      } characters; at most ${CLIENT_NAME_MAX_CHARS} are allowed`;
  }
}

/** The person's name when `OWNER_NAME` is unset. */
export const DEFAULT_OWNER_NAME = "owner";

/**
 * The name of callers that name nobody when `DEFAULT_CLIENT_NAME` is unset: never the owner's,
 * so an unnamed client neither sees the person's waiting work as its own nor takes it.
 */
export const DEFAULT_UNNAMED_CALLER = "anonymous";

/** `OWNER_NAME` (trimmed; `owner` when unset or blank), checked as a name; throws naming it. */
export function ownerNameVar(env: EnvSource): string {
  const name = env.get("OWNER_NAME")?.trim() || DEFAULT_OWNER_NAME;
  const problem = clientNameProblem(name, "OWNER_NAME");
  if (problem) throw new Error(problem);
  return name;
}

/** True when two participant names are one (names compare ignoring case everywhere). */
export function sameName(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

/**
 * True when `caller` is proven to be the owner named `ownerName`: signed in to the owner console
 * (`via: console`, which only the console's own routes make), or holding a token of
 * `AUTH_TOKENS` given that very name (`via: token`: the operator named the token after the
 * person, and the caller cannot choose a token's name). A header, stdio's `CLIENT_NAME`, an OAuth
 * app's self-chosen name or the default name prove nothing.
 */
export function provenOwner(caller: Caller, ownerName: string): boolean {
  return (caller.via === "console" || caller.via === "token") && sameName(caller.name, ownerName);
}
