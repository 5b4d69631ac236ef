/**
 * Who is calling, resolved once per request from what authentication established: the one
 * place that turns tokens and headers into a `Caller` (`tools/caller.ts` carries it as
 * `authInfo`), and where OAuth meets the token check. Precedence: OAuth > a named token >
 * `X-Client-Name` > `DEFAULT_CLIENT_NAME`.
 */

import type { NamedToken } from "../config.ts";
import { type Caller, clientNameProblem } from "../kit/caller.ts";
import { AppError } from "../kit/errors.ts";
import { SecretSet } from "../kit/secret.ts";
import { bearerToken, UTF8 } from "../kit/web.ts";
import type { OAuthServer } from "../oauth/server.ts";
import { RPC_PATHS } from "./status.ts";

/** What authentication proved about a request. */
export type Authenticated =
  /** `AUTH_TOKEN`, in the path or as bearer: anyone holding the server's key. */
  | { kind: "master" }
  /** A token of `AUTH_TOKENS`, which names its holder. */
  | { kind: "named"; name: string }
  /** A verified OAuth access token (added by the OAuth work). */
  | { kind: "oauth"; clientId: string; name: string };

/** The credentials with their secrets hashed once, ready to check requests against. */
export type Keyring = SecretSet<Authenticated>;

/**
 * Hashes the tokens a request may present once: `master` (`AUTH_TOKEN`, configured or
 * generated) outranks a named one (`AUTH_TOKENS`).
 */
export function keyringOf(credentials: { master: string; named: readonly NamedToken[] }): Keyring {
  return new SecretSet<Authenticated>([
    [credentials.master, { kind: "master" }],
    ...credentials.named.map((t) => [t.token, { kind: "named", name: t.name }] as const),
  ]);
}

/** An authenticated request: the path after the token, the prefix used, and who it proved. */
export interface Authentication {
  path: string;
  base: string;
  auth: Authenticated;
}

/**
 * Accepts a token as the first path segment, or as a bearer header on token-less paths; a path
 * token wins over a bearer one. Every candidate is compared, in constant time, so timing does
 * not tell which token nearly matched.
 */
export function authenticate(
  req: Request,
  url: URL,
  keyring: Keyring,
): Authentication | undefined {
  const path = url.pathname.slice(1);
  const slash = path.indexOf("/");
  if (slash > 0) {
    const auth = keyring.match(path.slice(0, slash));
    if (auth) return { path: path.slice(slash + 1), base: `/${path.slice(0, slash + 1)}`, auth };
  }
  const auth = keyring.match(bearerToken(req));
  return auth ? { path, base: "/", auth } : undefined;
}

/**
 * The caller of a request that authenticated as `auth`. A present `X-Client-Name` is checked
 * even when a token outranks it, so a client learns its label is bad instead of losing it
 * silently; a bad one is an `AppError` (400, code `invalid_client_name`), never truncated.
 */
export function resolveCaller(auth: Authenticated, req: Request, defaultName: string): Caller {
  const label = clientNameHeader(req);
  if (auth.kind === "oauth") return { name: auth.name, via: "oauth", clientId: auth.clientId };
  if (auth.kind === "named") return { name: auth.name, via: "token" };
  if (label !== undefined) return { name: label, via: "header" };
  return { name: defaultName, via: "default" };
}

/**
 * The `X-Client-Name` of `req`, or `undefined`. Header values arrive as bytes (one character
 * per byte), so a UTF-8 name such as `Zoë` is decoded here; bytes that are not UTF-8 are refused.
 */
export function clientNameHeader(req: Request): string | undefined {
  // The label a client may give itself when no token names it.
  const raw = req.headers.get("x-client-name");
  if (raw === null) return undefined;
  let name: string;
  try {
    // Deno's `Headers` holds only byte strings: each character is one byte.
    const bytes = Uint8Array.from(raw, (c) => c.charCodeAt(0));
    name = UTF8.decode(bytes);
  } catch {
    throw new AppError("invalid", "X-Client-Name is not well-formed UTF-8", "invalid_client_name");
  }
  const problem = clientNameProblem(name, "X-Client-Name");
  if (problem) throw new AppError("invalid", problem, "invalid_client_name");
  return name;
}

/**
 * `auth` (the token check's result) with OAuth applied: on the MCP endpoints (`RPC_PATHS`) an
 * OAuth access token is accepted (and outranks a path token beside it), and a request without
 * usable credentials gets the 401 that starts a sign-in. Every other route keeps answering 404
 * without a token.
 */
async function withOAuth(
  auth: Authentication | undefined,
  req: Request,
  url: URL,
  oauth: OAuthServer,
): Promise<Authentication | Response | undefined> {
  // A bearer that already matched AUTH_TOKEN or AUTH_TOKENS is not an OAuth token.
  if (auth !== undefined && auth.base === "/") return auth;
  const path = auth?.path ?? url.pathname.slice(1);
  if (!RPC_PATHS.includes(path)) return auth;
  const bearer = bearerToken(req);
  if (bearer !== null) {
    const caller = await oauth.verify(req, bearer);
    if (caller) return { path, base: auth?.base ?? "/", auth: { kind: "oauth", ...caller } };
  }
  return auth ?? oauth.challenge(req, bearer !== null);
}

/**
 * What a request's credentials prove: OAuth's own endpoints answered, a token (path or bearer)
 * or an OAuth access token checked; the answer that refuses it (OAuth's challenge), or
 * `undefined` when nothing proved anything (the caller answers 404).
 */
export async function checkCredentials(
  req: Request,
  url: URL,
  info: Deno.ServeHandlerInfo | undefined,
  keyring: Keyring,
  oauth: OAuthServer | undefined,
): Promise<Authentication | Response | undefined> {
  if (!oauth) return authenticate(req, url, keyring);
  const answered = await oauth.handle(req, info);
  if (answered) return answered;
  return await withOAuth(authenticate(req, url, keyring), req, url, oauth);
}
