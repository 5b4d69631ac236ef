/**
 * A second OAuth client written by others (`oauth4webapi`) driving each endpoint of the real
 * server: discovery from the 401, registration, the consent form, code exchange, refresh,
 * revocation and protected resource requests.
 */

import assert from "node:assert/strict";
// A test-only client: imported by full specifier, so it is pinned in deno.test.lock only.
// deno-lint-ignore no-import-prefix
import * as o from "npm:oauth4webapi@3.8.8";
import { startServer, type TestServer } from "./harness.ts";
import {
  approve,
  movableClock,
  OAUTH_ENV,
  openConsent,
  OWNER_SECRET,
  REDIRECT_URI,
  submitConsent,
} from "./oauth.ts";
import { initializeBody, MCP_POST_HEADERS } from "./rpc.ts";

export { o, OWNER_SECRET };

/** Loopback http is allowed by the server, and must be allowed explicitly in oauth4webapi. */
export const INSECURE = { [o.allowInsecureRequests]: true } as const;

const INIT = initializeBody();

/** A server with OAuth on, the metadata its 401 led to, and a movable clock. */
export interface OAuthWorld {
  server: TestServer;
  as: o.AuthorizationServer;
  clock: ReturnType<typeof movableClock>;
  close(): Promise<void>;
}

/** Starts a server with OAuth on and discovers it as oauth4webapi would, from a 401. */
export async function oauthWorld(env: Record<string, string> = {}): Promise<OAuthWorld> {
  const clock = movableClock();
  const server = await startServer({
    env: { ...OAUTH_ENV, ...env },
    now: clock.now,
  });
  try {
    const as = await discoverFrom401(server.origin);
    return { server, as, clock, close: () => server.close() };
  } catch (error) {
    await server.close();
    throw error;
  }
}

/** Follows the 401 of `/mcp` to the protected resource metadata and the server metadata. */
export async function discoverFrom401(origin: string): Promise<o.AuthorizationServer> {
  const challenge = await challengeOf(origin, "/mcp", "not-a-token");
  assert.equal(challenge.scheme, "bearer");
  assert.equal(challenge.parameters.error, "invalid_token");
  const metadataUrl = new URL(challenge.parameters.resource_metadata ?? "missing:");
  assert.equal(metadataUrl.href, `${origin}/.well-known/oauth-protected-resource`);
  const resource = await o.processResourceDiscoveryResponse(
    new URL(origin),
    await o.resourceDiscoveryRequest(new URL(origin), INSECURE),
  );
  const issuer = new URL(resource.authorization_servers![0]);
  return await o.processDiscoveryResponse(
    issuer,
    await o.discoveryRequest(issuer, { algorithm: "oauth2", ...INSECURE }),
  );
}

/** The challenge oauth4webapi reads from a protected resource request made with `token`. */
export async function challengeOf(
  origin: string,
  path: string,
  token: string,
): Promise<o.WWWAuthenticateChallenge> {
  const error = await o.protectedResourceRequest(
    token,
    "POST",
    new URL(`${origin}${path}`),
    new Headers(MCP_POST_HEADERS),
    INIT,
    INSECURE,
  ).then(() => undefined, (e) => e);
  assert.ok(error instanceof o.WWWAuthenticateChallengeError, `expected a challenge, got ${error}`);
  assert.equal(error.status, 401);
  return error.cause[0];
}

/** The status of an MCP initialize sent with `token` as bearer. */
export async function mcpStatus(origin: string, token: string): Promise<number> {
  const res = await fetch(`${origin}/mcp`, {
    method: "POST",
    headers: { ...MCP_POST_HEADERS, authorization: `Bearer ${token}` },
    body: INIT,
  });
  await res.body?.cancel();
  return res.status;
}

/** A registered client and how it authenticates. */
export interface Registered {
  client: o.Client;
  auth: o.ClientAuth;
}

/** Registers a client (public unless `confidential`). */
export async function registerClient(
  as: o.AuthorizationServer,
  options: { name?: string; confidential?: boolean; redirectUris?: string[] } = {},
): Promise<Registered> {
  const method = options.confidential ? "client_secret_basic" : "none";
  const response = await o.dynamicClientRegistrationRequest(as, {
    client_name: options.name ?? "oauth4webapi client",
    redirect_uris: options.redirectUris ?? [REDIRECT_URI],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: method,
  }, INSECURE);
  const client = await o.processDynamicClientRegistrationResponse(response);
  const auth = options.confidential
    ? o.ClientSecretBasic(client.client_secret as string)
    : o.None();
  return { client, auth };
}

/** An authorization request and the PKCE verifier and state behind it. */
export interface AuthRequest {
  url: URL;
  verifier: string;
  state: string;
  redirectUri: string;
}

/** Builds an authorization URL; `overrides` replace or (with `null`) drop parameters. */
export async function authorizationUrl(
  as: o.AuthorizationServer,
  client: o.Client,
  overrides: Record<string, string | null> = {},
): Promise<AuthRequest> {
  const verifier = o.generateRandomCodeVerifier();
  const state = o.generateRandomState();
  const url = new URL(as.authorization_endpoint!);
  const params: Record<string, string | null> = {
    client_id: client.client_id,
    redirect_uri: REDIRECT_URI,
    response_type: "code",
    code_challenge: await o.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    state,
    resource: `${new URL(as.issuer).origin}/mcp`,
    ...overrides,
  };
  for (const [name, value] of Object.entries(params)) {
    if (value !== null) url.searchParams.set(name, value);
  }
  return { url, verifier, state, redirectUri: params.redirect_uri ?? REDIRECT_URI };
}

/** Approves `request` on the consent page and returns the validated callback parameters. */
export async function consentTo(
  as: o.AuthorizationServer,
  client: o.Client,
  request: AuthRequest,
): Promise<URLSearchParams> {
  const back = await approve(request.url, OWNER_SECRET);
  return o.validateAuthResponse(as, client, back, request.state);
}

/** Exchanges the callback's code; returns the raw response for the test to process. */
export async function exchange(
  as: o.AuthorizationServer,
  reg: Registered,
  callback: URLSearchParams,
  request: AuthRequest,
  extra: Record<string, string> = {},
): Promise<Response> {
  return await o.authorizationCodeGrantRequest(
    as,
    reg.client,
    reg.auth,
    callback,
    request.redirectUri,
    request.verifier,
    {
      ...INSECURE,
      additionalParameters: { resource: request.url.searchParams.get("resource")!, ...extra },
    },
  );
}

/** Exchanges the callback's code and checks the answer: the tokens it carries. */
export async function redeem(
  as: o.AuthorizationServer,
  reg: Registered,
  callback: URLSearchParams,
  request: AuthRequest,
): Promise<o.TokenEndpointResponse> {
  return await o.processAuthorizationCodeResponse(
    as,
    reg.client,
    await exchange(as, reg, callback, request),
  );
}

/** Registers, consents and exchanges: a client holding a fresh access and refresh token. */
export async function signedIn(
  world: OAuthWorld,
  options: { name?: string; confidential?: boolean } = {},
): Promise<Registered & { tokens: o.TokenEndpointResponse }> {
  const reg = await registerClient(world.as, options);
  const request = await authorizationUrl(world.as, reg.client);
  const callback = await consentTo(world.as, reg.client, request);
  return { ...reg, tokens: await redeem(world.as, reg, callback, request) };
}

/** The OAuth error code a token endpoint response carries (it must be an error). */
export async function tokenError(response: Promise<Response> | Response): Promise<string> {
  const error = await o.processAuthorizationCodeResponse(
    { issuer: "x", token_endpoint: "x" } as o.AuthorizationServer,
    { client_id: "x" },
    await response,
  ).then(() => undefined, (e) => e);
  assert.ok(error instanceof o.ResponseBodyError, `expected an OAuth error body, got ${error}`);
  return error.error;
}

export { openConsent, REDIRECT_URI, submitConsent };
