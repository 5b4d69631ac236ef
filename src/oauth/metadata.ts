/**
 * Where this server is, as clients see it, and the discovery documents built on that: RFC 9728
 * protected resource metadata and RFC 8414 authorization server metadata.
 */

import type { OAuthMetadata, OAuthProtectedResourceMetadata } from "./sdk_auth.ts";
import type { OAuthSettings } from "./settings.ts";

/** The MCP endpoints a token is for; each also has its path-suffixed resource metadata. */
export const RESOURCE_PATHS = ["/mcp", "/sse"];

const HOST_HEADER = /^([A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*|\[[0-9A-Fa-f:.]+\])(:\d{1,5})?$/;

/**
 * The origin clients reach this server at: `PUBLIC_URL`, else the request's own origin, taking
 * the platform proxy's `X-Forwarded-Proto`/`-Host` only with `TRUST_PROXY=on` (anyone can send
 * those headers to a server that is not behind such a proxy).
 */
export function publicOrigin(req: Request, settings: OAuthSettings): string {
  if (settings.publicUrl !== undefined) return settings.publicUrl;
  const url = new URL(req.url);
  if (!settings.trustProxy) return url.origin;
  const proto = firstValue(req.headers.get("x-forwarded-proto"))?.toLowerCase();
  const host = firstValue(req.headers.get("x-forwarded-host"));
  const scheme = proto === "https" || proto === "http" ? proto : url.protocol.slice(0, -1);
  return `${scheme}://${host !== undefined && HOST_HEADER.test(host) ? host : url.host}`;
}

/** What a proxy's `X-Forwarded-For` entry looks like: an IP (a port or RFC 7239 `_name` too). */
const FORWARDED_ADDRESS = /^[0-9A-Za-z.:_\[\]-]{1,64}$/;

/**
 * The calling address, for counting failed attempts: with `TRUST_PROXY=on`, the last
 * `X-Forwarded-For` value, the one the proxy in front of this server appended (the values before
 * it are whatever the caller wrote, so counting by them would let a caller pick its own counter).
 */
export function clientAddress(
  req: Request,
  settings: OAuthSettings,
  info: Deno.ServeHandlerInfo | undefined,
): string {
  if (settings.trustProxy) {
    const forwarded = req.headers.get("x-forwarded-for")?.split(",").at(-1)?.trim();
    // A proxy appends an address; anything else (a caller's kilobytes, which no KV key holds)
    // is not one, and the connection's own address counts instead.
    if (forwarded && FORWARDED_ADDRESS.test(forwarded)) return forwarded;
  }
  const addr = info?.remoteAddr;
  return addr && "hostname" in addr ? addr.hostname : "unknown";
}

function firstValue(header: string | null): string | undefined {
  const first = header?.split(",")[0].trim();
  return first ? first : undefined;
}

/** The issuer identifier: the origin with its root path, as `new URL(origin).href` writes it. */
export function issuerOf(origin: string): string {
  return `${origin}/`;
}

/**
 * The query parameters a pasted MCP URL may carry (`/mcp?toolsets=…&graph=…`, the graph the
 * memory toolset uses); nothing else is ours.
 */
const RESOURCE_QUERY = ["toolsets", "graph"];

/**
 * True when `resource` (RFC 8707) names exactly this server: its origin, or one of its MCP
 * endpoints, with or without a trailing slash or a `toolsets` / `graph` query. Refused: userinfo
 * (even empty: `http://x@host/mcp` is not how anyone writes this server), a fragment, any other
 * path or query parameter, and text a URL parser would first have to clean (spaces, backslashes).
 * A token asked for anywhere else is refused, so it cannot be replayed at another server.
 */
export function isOwnResource(resource: string, origin: string): boolean {
  // The parser drops an empty userinfo and turns backslashes into slashes; the raw text must not
  // need that to read as this server.
  if (/[\\\s@#]/.test(resource.replace(/[?].*$/s, "")) || /[\s#]/.test(resource)) return false;
  let url: URL;
  try {
    url = new URL(resource);
  } catch {
    return false;
  }
  if (url.username !== "" || url.password !== "" || url.origin !== origin) return false;
  if ([...url.searchParams.keys()].some((key) => !RESOURCE_QUERY.includes(key))) return false;
  // A pasted URL may carry `?toolsets=…` or end in a slash; it still names this server.
  const path = url.pathname.length > 1 ? url.pathname.replace(/\/$/, "") : url.pathname;
  return path === "/" || RESOURCE_PATHS.includes(path);
}

/** RFC 9728 metadata for the resource at `path` (`""` for the origin as a whole). */
export function resourceMetadata(origin: string, path: string): OAuthProtectedResourceMetadata {
  return {
    resource: path === "" ? issuerOf(origin) : `${origin}${path}`,
    authorization_servers: [issuerOf(origin)],
    bearer_methods_supported: ["header"],
    resource_name: "handoff-mcp",
  };
}

/** The auth methods a client may register and use at the token and revocation endpoints. */
export const AUTH_METHODS = ["none", "client_secret_basic", "client_secret_post"] as const;

/** RFC 8414 metadata of this authorization server (also served at the OpenID discovery path). */
export function serverMetadata(origin: string): OAuthMetadata {
  return {
    issuer: issuerOf(origin),
    authorization_endpoint: `${origin}/authorize`,
    token_endpoint: `${origin}/token`,
    registration_endpoint: `${origin}/register`,
    revocation_endpoint: `${origin}/revoke`,
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    token_endpoint_auth_methods_supported: [...AUTH_METHODS],
    revocation_endpoint_auth_methods_supported: [...AUTH_METHODS],
    code_challenge_methods_supported: ["S256"],
    authorization_response_iss_parameter_supported: true,
    // A client may also be an https URL whose JSON names it (`cimd.ts`), beside registration.
    client_id_metadata_document_supported: true,
  };
}
