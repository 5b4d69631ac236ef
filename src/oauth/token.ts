/** The token endpoint (code and refresh grants) and RFC 7009 revocation, with client authentication. */

import { AppError } from "../kit/errors.ts";
import { json, readText } from "../kit/web.ts";
import { OAuthTokenRevocationRequestSchema, type OAuthTokens } from "./sdk_auth.ts";
import type { OAuthContext, OAuthRequest } from "./context.ts";
import { secretMatches } from "../kit/secret.ts";
import { isCodeVerifier, pkceMatches, sha256 } from "./crypto.ts";
import { OAuthError } from "./errors.ts";
import { isOwnResource, issuerOf } from "./metadata.ts";
import { getClient } from "./store_clients.ts";
import { redeemCode } from "./store_codes.ts";
import {
  findTokenOwner,
  type IssuedTokens,
  type Lifetimes,
  revokeGrant,
  rotateRefreshToken,
} from "./store_grants.ts";
import type { ClientRecord } from "./store_keys.ts";

/** Largest token or revocation request body accepted, in bytes. */
export const TOKEN_FORM_MAX_BYTES = 16 * 1024;

/** Handles `POST /token`. */
export async function token(ctx: OAuthContext, r: OAuthRequest): Promise<Response> {
  const form = await readForm(r.req);
  const client = await authenticateClient(ctx, r.req, form);
  const life: Lifetimes = ctx.settings;
  const now = ctx.now();
  const resource = form.get("resource");
  if (resource !== null && !isOwnResource(resource, r.origin)) {
    throw new OAuthError(
      "invalid_target",
      `resource must be this server (${issuerOf(r.origin)}mcp)`,
    );
  }
  const grantType = form.get("grant_type");
  let issued: IssuedTokens;
  if (grantType === "authorization_code") {
    const code = required(form, "code");
    const verifier = form.get("code_verifier");
    if (verifier === null) {
      throw new OAuthError("invalid_request", "code_verifier is required (PKCE)");
    }
    if (!isCodeVerifier(verifier)) {
      throw new OAuthError(
        "invalid_grant",
        "code_verifier must be 43 to 128 unreserved characters",
      );
    }
    issued = await redeemCode(
      ctx.kv,
      {
        code,
        clientId: client.id,
        redirectUri: form.get("redirect_uri") ?? undefined,
        async verify(record) {
          if (!await pkceMatches(verifier, record.challenge)) {
            throw new OAuthError(
              "invalid_grant",
              "code_verifier does not match the code_challenge",
            );
          }
        },
      },
      life,
      now,
    );
  } else if (grantType === "refresh_token") {
    if (!client.grantTypes.includes("refresh_token")) {
      throw new OAuthError("unauthorized_client", "This client did not register refresh_token");
    }
    issued = await rotateRefreshToken(
      ctx.kv,
      required(form, "refresh_token"),
      client.id,
      life,
      now,
    );
  } else {
    throw new OAuthError(
      "unsupported_grant_type",
      "grant_type must be authorization_code or refresh_token",
    );
  }
  const body: OAuthTokens = {
    access_token: issued.accessToken,
    token_type: "Bearer",
    expires_in: issued.expiresIn,
    ...(client.grantTypes.includes("refresh_token") ? { refresh_token: issued.refreshToken } : {}),
    ...(issued.scope === undefined ? {} : { scope: issued.scope }),
  };
  return json(200, body, { "cache-control": "no-store", pragma: "no-cache" });
}

/** Handles `POST /revoke`: revokes the grant a token belongs to; unknown tokens also get 200. */
export async function revoke(ctx: OAuthContext, r: OAuthRequest): Promise<Response> {
  const form = await readForm(r.req);
  const client = await authenticateClient(ctx, r.req, form);
  const parsed = OAuthTokenRevocationRequestSchema.safeParse(Object.fromEntries(form));
  if (!parsed.success) throw new OAuthError("invalid_request", "token is required");
  const owner = await findTokenOwner(ctx.kv, parsed.data.token);
  if (owner !== undefined && owner.clientId === client.id) await revokeGrant(ctx.kv, owner.grantId);
  return new Response(null, { status: 200, headers: { "cache-control": "no-store" } });
}

async function readForm(req: Request): Promise<URLSearchParams> {
  const type = req.headers.get("content-type") ?? "";
  if (!type.toLowerCase().startsWith("application/x-www-form-urlencoded")) {
    throw new OAuthError(
      "invalid_request",
      "The body must be application/x-www-form-urlencoded",
    );
  }
  try {
    return new URLSearchParams(await readText(req, TOKEN_FORM_MAX_BYTES));
  } catch (error) {
    if (error instanceof AppError) throw new OAuthError("invalid_request", error.message);
    throw error;
  }
}

function required(form: URLSearchParams, name: string): string {
  const value = form.get(name);
  if (!value) throw new OAuthError("invalid_request", `${name} is required`);
  return value;
}

/**
 * The client calling the token or revocation endpoint: a public client names itself with
 * `client_id`; a confidential one proves its secret with HTTP Basic or `client_secret` in the body.
 */
async function authenticateClient(
  ctx: OAuthContext,
  req: Request,
  form: URLSearchParams,
): Promise<ClientRecord> {
  let clientId = form.get("client_id");
  let secret = form.get("client_secret");
  const basic = req.headers.get("authorization")?.match(/^Basic\s+(\S+)\s*$/i);
  if (basic) {
    let decoded: string;
    try {
      decoded = atob(basic[1]);
    } catch {
      throw invalidClient("The Basic credentials are not valid base64");
    }
    const colon = decoded.indexOf(":");
    if (colon < 0) throw invalidClient("The Basic credentials must be client_id:client_secret");
    try {
      clientId = decodeURIComponent(decoded.slice(0, colon));
      secret = decodeURIComponent(decoded.slice(colon + 1));
    } catch {
      throw invalidClient("The Basic credentials are not URL-encoded correctly");
    }
  }
  if (!clientId) throw invalidClient("client_id is required");
  const client = await getClient(ctx.kv, clientId, ctx.now());
  if (!client) throw invalidClient("Unknown client (it may have been revoked); register again");
  if (client.secretHash === undefined) {
    if (secret) throw invalidClient("This client is public: it has no secret to send");
    return client;
  }
  if (!secret || !secretMatches(await sha256(secret), client.secretHash)) {
    throw invalidClient("The client secret is missing or wrong");
  }
  return client;
}

function invalidClient(description: string): OAuthError {
  return new OAuthError("invalid_client", description, 401);
}
