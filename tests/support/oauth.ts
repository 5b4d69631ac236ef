/**
 * OAuth test helpers: an in-memory `OAuthClientProvider` for the SDK's own client flow, the
 * owner driving the consent form with fetch as a browser would, and a movable clock.
 */

import assert from "node:assert/strict";
import {
  Client,
  type OAuthClientProvider,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from "../../src/client/sdk_client.ts";

type Saved<K extends keyof OAuthClientProvider> = NonNullable<OAuthClientProvider[K]> extends
  (arg: infer A) => unknown ? A : never;

/** The owner secret every OAuth test server asks for. */
export const OWNER_SECRET = "owner-secret-for-tests-0123456789";
/** The environment of a test server with OAuth on. */
export const OAUTH_ENV = { OAUTH: "on", OAUTH_OWNER_SECRET: OWNER_SECRET } as const;

/** A loopback redirect URI nothing listens on: the test reads the code from the Location header. */
export const REDIRECT_URI = "http://127.0.0.1:9/callback";

/** What the SDK's client keeps between calls, kept in memory. */
export class MemoryProvider implements OAuthClientProvider {
  readonly clientMetadata: OAuthClientProvider["clientMetadata"];
  client?: Saved<"saveClientInformation">;
  saved?: Saved<"saveTokens">;
  verifier = "";
  expectedState = "";
  /** Where the SDK sent the browser last. */
  authorizationUrl?: URL;

  constructor(name: string, confidential = false) {
    this.clientMetadata = {
      client_name: name,
      redirect_uris: [REDIRECT_URI],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: confidential ? "client_secret_basic" : "none",
    };
  }
  get redirectUrl() {
    return REDIRECT_URI;
  }
  state() {
    this.expectedState = crypto.randomUUID();
    return this.expectedState;
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: Saved<"saveClientInformation">) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: Saved<"saveTokens">) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** The consent form as the browser got it. */
export interface ConsentForm {
  status: number;
  html: string;
  csrf: string;
  cookie: string;
}

/** Opens the consent page of `authorizationUrl` (GET), as the owner's browser would. */
export async function openConsent(authorizationUrl: URL | string): Promise<ConsentForm> {
  const res = await fetch(authorizationUrl, { redirect: "manual" });
  const html = await res.text();
  const csrf = html.match(/name="csrf" value="([^"]+)"/)?.[1] ?? "";
  const cookie = (res.headers.get("set-cookie") ?? "").split(";")[0];
  return { status: res.status, html, csrf, cookie };
}

/** Submits the consent form; returns the response (a 303 back to the client when approved). */
export async function submitConsent(
  authorizationUrl: URL | string,
  form: ConsentForm,
  fields: Record<string, string>,
  cookie: string = form.cookie,
): Promise<Response> {
  const action = new URL("/authorize", authorizationUrl);
  return await fetch(action, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie },
    body: new URLSearchParams(fields),
  });
}

/** Approves with `secret` and returns the redirect's query (`code`, `state`, `iss` or `error`). */
export async function approve(
  authorizationUrl: URL | string,
  secret: string,
): Promise<URLSearchParams> {
  const form = await openConsent(authorizationUrl);
  if (form.status !== 200) throw new Error(`consent page answered ${form.status}: ${form.html}`);
  const res = await submitConsent(authorizationUrl, form, {
    csrf: form.csrf,
    secret,
    decision: "approve",
  });
  await res.body?.cancel();
  const location = res.headers.get("location");
  if (res.status !== 303 || location === null) {
    throw new Error(`consent answered ${res.status} without a redirect`);
  }
  return new URL(location).searchParams;
}

/** A clock the test moves forward. */
export function movableClock(): { now: () => number; advance(ms: number): void } {
  let offset = 0;
  return { now: () => Date.now() + offset, advance: (ms) => void (offset += ms) };
}

/**
 * Signs the SDK client of `provider` in through the consent form of the server at `origin`, as
 * the owner holding `secret`: the first connect is refused, the owner approves, the code is
 * exchanged. `provider` then holds the tokens.
 */
export async function signIn(
  origin: string,
  provider: MemoryProvider,
  secret = OWNER_SECRET,
): Promise<void> {
  const transport = new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), {
    authProvider: provider,
  });
  const client = new Client({ name: "sdk-oauth", version: "1.0.0" });
  await assert.rejects(client.connect(transport), UnauthorizedError);
  assert.ok(provider.authorizationUrl, "the SDK was sent to the authorization endpoint");
  const back = await approve(provider.authorizationUrl, secret);
  assert.equal(back.get("state"), provider.expectedState);
  assert.equal(back.get("iss"), `${origin}/`);
  await transport.finishAuth(back.get("code")!);
  await transport.close();
}
