/**
 * The OAuth 2.1 authorization server for MCP clients (authorization spec 2025-06-18): discovery,
 * registration, consent, tokens and revocation on web standards, all state in KV. `http/` asks it
 * to answer its own routes, to verify a bearer token, and for the 401 that starts a sign-in.
 */

import { json, plain } from "../kit/web.ts";
import { AppError } from "../kit/errors.ts";
import { decideConsent, showConsent } from "./authorize.ts";
import type { OAuthContext, OAuthRequest } from "./context.ts";
import { OAuthError, oauthErrorResponse } from "./errors.ts";
import {
  clientAddress,
  isOwnResource,
  publicOrigin,
  RESOURCE_PATHS,
  resourceMetadata,
  serverMetadata,
} from "./metadata.ts";
import { register } from "./register.ts";
import type { OAuthSettings } from "./settings.ts";
import { findAccess } from "./store_grants.ts";
import { revoke, token } from "./token.ts";

/** Who an OAuth access token speaks for. */
export interface OAuthCaller {
  clientId: string;
  /** The client's registered name, or its alias from `CLIENT_NAME_ALIASES`. */
  name: string;
}

/** The OAuth server as `http/` uses it. */
export interface OAuthServer {
  /** Answers an OAuth route (discovery, register, authorize, token, revoke), else `undefined`. */
  handle(req: Request, info?: Deno.ServeHandlerInfo): Promise<Response | undefined>;
  /** The caller a bearer token stands for, or `undefined` when unknown, expired or revoked. */
  verify(req: Request, token: string): Promise<OAuthCaller | undefined>;
  /** The 401 that tells a client where to sign in (`invalid_token` when a token was refused). */
  challenge(req: Request, refused: boolean): Response;
}

/** What the OAuth server needs. */
export interface OAuthServerOptions {
  kv: Deno.Kv;
  settings: OAuthSettings;
  /** The server's `AUTH_TOKEN`, asked on the consent page when `OAUTH_OWNER_SECRET` is unset. */
  authToken: string;
  now?: () => number;
}

const WELL_KNOWN_RESOURCE = "/.well-known/oauth-protected-resource";
const WELL_KNOWN_SERVER = [
  "/.well-known/oauth-authorization-server",
  "/.well-known/openid-configuration",
];
/** Endpoints any origin may call from a browser (CORS): discovery and the JSON/form APIs. */
const CORS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, OPTIONS",
  "access-control-allow-headers": "authorization, content-type, mcp-protocol-version",
};

/** Creates the OAuth server. */
export function createOAuthServer(options: OAuthServerOptions): OAuthServer {
  const ctx: OAuthContext = {
    kv: options.kv,
    settings: options.settings,
    ownerSecret: options.settings.ownerSecret ?? options.authToken,
    now: options.now ?? Date.now,
  };
  const { settings } = options;

  return {
    async handle(req, info) {
      const r: OAuthRequest = {
        req,
        url: new URL(req.url),
        origin: publicOrigin(req, settings),
        address: clientAddress(req, settings, info),
      };
      try {
        return await route(ctx, r);
      } catch (error) {
        return failure(error);
      }
    },
    async verify(req, bearer) {
      const access = await findAccess(ctx.kv, bearer, ctx.now());
      if (access === undefined || !isOwnResource(access.resource, publicOrigin(req, settings))) {
        return undefined;
      }
      return {
        clientId: access.clientId,
        name: settings.aliases.get(access.clientId) ?? access.clientName,
      };
    },
    challenge: (req, refused) => challenge(publicOrigin(req, settings), refused),
  };
}

/** Answers the OAuth endpoints; `undefined` for a path that is not one of them. */
async function route(ctx: OAuthContext, r: OAuthRequest): Promise<Response | undefined> {
  const path = r.url.pathname;
  const method = r.req.method;
  if (path === WELL_KNOWN_RESOURCE || path.startsWith(`${WELL_KNOWN_RESOURCE}/`)) {
    const suffix = path.slice(WELL_KNOWN_RESOURCE.length);
    if (suffix !== "" && !RESOURCE_PATHS.includes(suffix)) return undefined;
    return get(method, () => json(200, resourceMetadata(r.origin, suffix), CORS));
  }
  if (WELL_KNOWN_SERVER.includes(path)) {
    return get(method, () => json(200, serverMetadata(r.origin), CORS));
  }
  if (path === "/authorize") {
    if (method === "GET") return await showConsent(ctx, r);
    if (method === "POST") return await decideConsent(ctx, r);
    return plain(405, "Use GET or POST", { allow: "GET, POST" });
  }
  const api: Record<string, () => Promise<Response>> = {
    "/register": () => register(ctx, r),
    "/token": () => token(ctx, r),
    "/revoke": () => revoke(ctx, r),
  };
  const endpoint = api[path];
  if (endpoint === undefined) return undefined;
  if (method === "OPTIONS") return new Response(null, { status: 204, headers: CORS });
  if (method !== "POST") return plain(405, "Use POST", { allow: "POST", ...CORS });
  try {
    return withHeaders(await endpoint(), CORS);
  } catch (error) {
    if (error instanceof OAuthError) {
      const basic = error.status === 401 &&
        /^Basic/i.test(r.req.headers.get("authorization") ?? "");
      return oauthErrorResponse(error, {
        ...CORS,
        ...(basic ? { "www-authenticate": 'Basic realm="handoff-mcp"' } : {}),
      });
    }
    throw error;
  }
}

/** The 401 that sends a client to sign in (no token) or to refresh (`refused` token). */
function challenge(origin: string, refused: boolean): Response {
  const metadata = `resource_metadata="${origin}${WELL_KNOWN_RESOURCE}"`;
  const header = refused
    ? `Bearer error="invalid_token", error_description="The access token is unknown, expired or revoked", ${metadata}`
    : `Bearer ${metadata}`;
  const body = refused
    ? {
      error: "invalid_token",
      error_description: "The access token is unknown, expired or revoked",
    }
    : {
      error: "unauthorized",
      error_description: "Sign in with OAuth, or use the server's token",
    };
  return json(401, body, {
    "www-authenticate": header,
    ...CORS,
    "access-control-expose-headers": "www-authenticate",
  });
}

/** An unexpected failure, answered in OAuth's shape: busy KV is worth a retry, anything else is logged. */
function failure(error: unknown): Response {
  if (error instanceof OAuthError) return oauthErrorResponse(error, CORS);
  if (error instanceof AppError && error.kind === "busy") {
    return oauthErrorResponse(new OAuthError("temporarily_unavailable", error.message, 503), CORS);
  }
  console.error(`handoff-mcp: OAuth error: ${error instanceof Error ? error.stack : error}`);
  return oauthErrorResponse(new OAuthError("server_error", "Internal server error", 500), CORS);
}

function get(method: string, answer: () => Response): Response {
  if (method === "GET" || method === "HEAD") return answer();
  if (method === "OPTIONS") return new Response(null, { status: 204, headers: CORS });
  return plain(405, "Use GET", { allow: "GET", ...CORS });
}

function withHeaders(res: Response, headers: Record<string, string>): Response {
  for (const [name, value] of Object.entries(headers)) res.headers.set(name, value);
  return res;
}
