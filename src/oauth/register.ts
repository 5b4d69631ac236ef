/** RFC 7591 dynamic client registration: public and confidential clients, exact redirect URIs. */

import { AppError } from "../kit/errors.ts";
import { ulid } from "../kit/ids.ts";
import { clientNameProblem } from "../kit/caller.ts";
import { json, readJson } from "../kit/web.ts";
import { OAuthClientMetadataSchema } from "./sdk_auth.ts";
import { randomSecret, sha256 } from "./crypto.ts";
import { OAuthError } from "./errors.ts";
import { AUTH_METHODS } from "./metadata.ts";
import {
  type Counter,
  exhaustedCounter,
  limitText,
  registrationCounters,
  reserveAttempt,
} from "./store_attempts.ts";
import { createClient } from "./store_clients.ts";
import type { OAuthContext, OAuthRequest } from "./context.ts";
import type { AuthMethod, ClientRecord } from "./store_keys.ts";

/** Largest registration request accepted, in bytes. */
export const REGISTRATION_MAX_BYTES = 16 * 1024;
/** Most redirect URIs one client may register. */
export const REDIRECT_URIS_MAX = 10;

const GRANT_TYPES = ["authorization_code", "refresh_token"];

/**
 * Handles `POST /register`: validates the metadata and stores the client. Registration needs no
 * credentials, so each address may register only so many clients per window, and a client the
 * owner never approves expires.
 */
export async function register(ctx: OAuthContext, r: OAuthRequest): Promise<Response> {
  const { kv, settings } = ctx;
  const now = ctx.now();
  const counters = registrationCounters(settings, r.address);
  const full = await exhaustedCounter(kv, counters, now);
  if (full !== undefined) throw tooManyRegistrations(full, settings.attemptWindowMs);
  let body: unknown;
  try {
    body = await readJson(r.req, REGISTRATION_MAX_BYTES);
  } catch (error) {
    if (error instanceof AppError) throw new OAuthError("invalid_client_metadata", error.message);
    throw error;
  }
  const parsed = OAuthClientMetadataSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new OAuthError(
      "invalid_client_metadata",
      `Client metadata is not valid: ${issue.path.join(".") || "body"}: ${issue.message}`,
    );
  }
  const meta = parsed.data;
  checkRedirectUris(meta.redirect_uris);
  const authMethod = (meta.token_endpoint_auth_method ?? "client_secret_basic") as AuthMethod;
  if (!(AUTH_METHODS as readonly string[]).includes(authMethod)) {
    throw new OAuthError(
      "invalid_client_metadata",
      `token_endpoint_auth_method must be one of ${AUTH_METHODS.join(", ")}`,
    );
  }
  const { grantTypes, responseTypes } = flowTypes(meta);
  const name = meta.client_name?.trim();
  // The name becomes the caller's name: the one client-name check (kit/caller.ts) applies.
  const problem = name === undefined ? undefined : clientNameProblem(name, "client_name");
  if (problem !== undefined) throw new OAuthError("invalid_client_metadata", problem);
  const id = `client_${ulid(now).toLowerCase()}`;
  const secret = authMethod === "none" ? undefined : randomSecret();
  const client: ClientRecord = {
    id,
    name: name ?? `unnamed client ${id.slice(-6)}`,
    redirectUris: meta.redirect_uris,
    authMethod,
    ...(secret === undefined ? {} : { secretHash: await sha256(secret) }),
    grantTypes,
    metadata: meta as Record<string, unknown>,
    createdAt: new Date(now).toISOString(),
  };
  const refused = await reserveAttempt(kv, counters, settings.attemptWindowMs, now);
  if (refused !== undefined) throw tooManyRegistrations(refused, settings.attemptWindowMs);
  await createClient(kv, client, settings.unapprovedClientTtlMs);
  return json(201, {
    ...meta,
    client_id: id,
    ...(secret === undefined ? {} : { client_secret: secret, client_secret_expires_at: 0 }),
    client_id_issued_at: Math.floor(now / 1000),
    token_endpoint_auth_method: authMethod,
    grant_types: grantTypes,
    response_types: responseTypes,
  }, { "cache-control": "no-store" });
}

/**
 * The grant and response types of client metadata (registered or in a metadata document), with
 * their defaults; throws `invalid_client_metadata` for any this server does not support.
 */
export function flowTypes(
  meta: { grant_types?: string[]; response_types?: string[] },
): { grantTypes: string[]; responseTypes: string[] } {
  const grantTypes = meta.grant_types ?? GRANT_TYPES;
  if (
    !grantTypes.includes("authorization_code") || grantTypes.some((g) => !GRANT_TYPES.includes(g))
  ) {
    throw new OAuthError(
      "invalid_client_metadata",
      `grant_types must include authorization_code and may add refresh_token; nothing else is supported`,
    );
  }
  const responseTypes = meta.response_types ?? ["code"];
  if (responseTypes.length !== 1 || responseTypes[0] !== "code") {
    throw new OAuthError("invalid_client_metadata", `response_types must be ["code"]`);
  }
  return { grantTypes, responseTypes };
}

function tooManyRegistrations(full: Counter, windowMs: number): OAuthError {
  return new OAuthError(
    "temporarily_unavailable",
    `Too many registrations (${limitText(full, windowMs)}); try again later`,
    429,
  );
}

/** Refuses redirect URIs that are not https (or http on loopback), or hold a fragment or userinfo. */
export function checkRedirectUris(uris: string[]): void {
  if (uris.length === 0 || uris.length > REDIRECT_URIS_MAX) {
    throw new OAuthError(
      "invalid_redirect_uri",
      `redirect_uris must hold 1 to ${REDIRECT_URIS_MAX} URIs`,
    );
  }
  for (const uri of uris) {
    const url = new URL(uri);
    const loopback = ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname);
    const ok = (url.protocol === "https:" || (url.protocol === "http:" && loopback)) &&
      url.hash === "" && url.username === "" && url.password === "";
    if (!ok) {
      throw new OAuthError(
        "invalid_redirect_uri",
        `Redirect URI ${uri} is not allowed: use https, or http on a loopback address (localhost, 127.0.0.1, [::1]), without a fragment`,
      );
    }
  }
}
