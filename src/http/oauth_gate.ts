/**
 * Where OAuth meets the token check: on the MCP endpoints an OAuth access token is accepted (and
 * outranks a path token beside it), and a request without usable credentials gets the 401 that
 * starts a sign-in. Every other route keeps answering 404 without a token.
 */

import type { OAuthServer } from "../oauth/server.ts";
import { bearerToken } from "../kit/web.ts";
import type { Authentication } from "./identity.ts";

/** `auth` (the token check's result) with OAuth applied: an authentication, a 401, or none. */
export async function withOAuth(
  auth: Authentication | undefined,
  req: Request,
  url: URL,
  oauth: OAuthServer,
  mcpPaths: readonly string[],
): Promise<Authentication | Response | undefined> {
  // A bearer that already matched AUTH_TOKEN or AUTH_TOKENS is not an OAuth token.
  if (auth !== undefined && auth.base === "/") return auth;
  const path = auth?.path ?? url.pathname.slice(1);
  if (!mcpPaths.includes(path)) return auth;
  const bearer = bearerToken(req);
  if (bearer !== null) {
    const caller = await oauth.verify(req, bearer);
    if (caller) return { path, base: auth?.base ?? "/", auth: { kind: "oauth", ...caller } };
  }
  return auth ?? oauth.challenge(req, bearer !== null);
}
