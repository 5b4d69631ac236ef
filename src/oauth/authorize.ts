/**
 * The authorization endpoint: GET checks the request and shows the consent form; POST takes the
 * owner's answer and sends the browser back to the client with a code (or `access_denied`).
 */

import { AppError } from "../kit/errors.ts";
import { cookieValue, readText } from "../kit/web.ts";
import type { OAuthContext, OAuthRequest } from "./context.ts";
import { PAGE_HEADERS, renderConsent, renderProblem } from "./consent.ts";
import { secretMatches } from "../kit/secret.ts";
import { isOwnResource, issuerOf } from "./metadata.ts";
import {
  consentCounters,
  consentFormCounters,
  type Counter,
  exhaustedCounter,
  limitText,
  releaseAttempt,
  reserveAttempt,
} from "./store_attempts.ts";
import { CimdError, isMetadataClientId, metadataClient } from "./cimd.ts";
import { getClient } from "./store_clients.ts";
import { approveConsent, createConsent, getConsent } from "./store_codes.ts";
import type { ClientRecord } from "./store_keys.ts";

/** Largest consent form body accepted, in bytes. */
export const CONSENT_FORM_MAX_BYTES = 8 * 1024;
const CSRF_COOKIE = "oauth_csrf";
/** Longest `state` or `scope` kept for a request, in characters. */
export const PARAM_MAX_CHARS = 1024;

/** Handles `GET /authorize`. */
export async function showConsent(ctx: OAuthContext, r: OAuthRequest): Promise<Response> {
  const p = r.url.searchParams;
  const clientId = p.get("client_id");
  if (clientId !== null && isMetadataClientId(clientId)) {
    try {
      return await consentFor(ctx, r, await metadataClient(ctx, clientId, r.address));
    } catch (error) {
      if (!(error instanceof CimdError)) throw error;
      return problem(
        400,
        "App not accepted",
        `This app names itself by the document at ${clientId}, which was refused: ${error.message}. Nothing was sent back to the app.`,
      );
    }
  }
  const client = clientId ? await getClient(ctx.kv, clientId, ctx.now()) : undefined;
  if (!client) {
    return problem(
      400,
      "Unknown app",
      "This app is not registered here (or was revoked). Remove the server from the app and add it again.",
    );
  }
  return await consentFor(ctx, r, client);
}

/** The rest of `GET /authorize` once the client is known: the request's checks, then the form. */
async function consentFor(
  ctx: OAuthContext,
  r: OAuthRequest,
  client: ClientRecord,
): Promise<Response> {
  const p = r.url.searchParams;
  const asked = p.get("redirect_uri");
  const redirectUri = asked ?? (client.redirectUris.length === 1 ? client.redirectUris[0] : null);
  if (redirectUri === null || !client.redirectUris.includes(redirectUri)) {
    return problem(
      400,
      "Wrong return address",
      "The redirect_uri of this request is not one the app registered, so nothing is sent back to it.",
    );
  }
  const state = p.get("state") ?? undefined;
  const scope = p.get("scope") ?? undefined;
  const back = (error: string, description: string) =>
    redirect(redirectUri, {
      error,
      error_description: description,
      state,
      iss: issuerOf(r.origin),
    });
  if ((state?.length ?? 0) > PARAM_MAX_CHARS || (scope?.length ?? 0) > PARAM_MAX_CHARS) {
    return redirect(redirectUri, {
      error: "invalid_request",
      error_description: `state and scope may hold at most ${PARAM_MAX_CHARS} characters`,
      iss: issuerOf(r.origin),
    });
  }
  const wrong = flowProblem(p, r.origin);
  if (wrong !== undefined) return back(...wrong);
  const challenge = p.get("code_challenge")!;
  const resource = p.get("resource") ?? issuerOf(r.origin);
  const now = ctx.now();
  const window = ctx.settings.attemptWindowMs;
  const forms = await reserveAttempt(
    ctx.kv,
    consentFormCounters(ctx.settings, r.address),
    window,
    now,
  );
  if (forms !== undefined) {
    return problem(
      429,
      "Too many sign-ins",
      `Too many sign-in forms were opened (${
        limitText(forms, window)
      }). Wait a while and start again from the app.`,
    );
  }
  const csrf = await createConsent(
    ctx.kv,
    {
      clientId: client.id,
      redirectUri,
      ...(asked === null ? { redirectUriOmitted: true as const } : {}),
      challenge,
      resource,
      ...(state === undefined ? {} : { state }),
      ...(scope === undefined ? {} : { scope }),
    },
    ctx.settings.consentTtlMs,
    now,
  );
  const secure = r.origin.startsWith("https:") ? "; Secure" : "";
  const cookie = `${CSRF_COOKIE}=${csrf}; Path=/authorize; HttpOnly; SameSite=Strict; Max-Age=${
    Math.floor(ctx.settings.consentTtlMs / 1000)
  }${secure}`;
  return consentPage(ctx, client, redirectUri, csrf, 200, undefined, { "set-cookie": cookie });
}

/**
 * The first thing wrong with a request's flow parameters (response type, PKCE, resource), as the
 * OAuth error and description sent back to the client, or `undefined`.
 */
function flowProblem(p: URLSearchParams, origin: string): [string, string] | undefined {
  if (p.get("response_type") !== "code") {
    return ["unsupported_response_type", "response_type must be code"];
  }
  const challenge = p.get("code_challenge");
  if (challenge === null) return ["invalid_request", "code_challenge is required: PKCE with S256"];
  if (p.get("code_challenge_method") !== "S256") {
    return ["invalid_request", "code_challenge_method must be S256; plain is not supported"];
  }
  if (!/^[A-Za-z0-9_-]{43}$/.test(challenge)) {
    return ["invalid_request", "code_challenge must be the base64url SHA-256 of the verifier"];
  }
  const resources = p.getAll("resource");
  if (resources.length > 1 || !isOwnResource(resources[0] ?? issuerOf(origin), origin)) {
    return ["invalid_target", `resource must be this server (${issuerOf(origin)}mcp)`];
  }
  return undefined;
}

/** Handles `POST /authorize`: the owner's decision on the consent form. */
export async function decideConsent(ctx: OAuthContext, r: OAuthRequest): Promise<Response> {
  const type = r.req.headers.get("content-type") ?? "";
  if (!type.toLowerCase().startsWith("application/x-www-form-urlencoded")) {
    return problem(
      415,
      "Not a form",
      "Send the consent form as application/x-www-form-urlencoded.",
    );
  }
  let form: URLSearchParams;
  try {
    form = new URLSearchParams(await readText(r.req, CONSENT_FORM_MAX_BYTES));
  } catch (error) {
    if (error instanceof AppError) return problem(400, "Bad form", error.message);
    throw error;
  }
  const csrf = form.get("csrf");
  if (!csrf) {
    return problem(
      403,
      "Form refused",
      "The form has no CSRF token. Start the sign-in again from the app.",
    );
  }
  if (cookieValue(r.req, CSRF_COOKIE) !== csrf) {
    return problem(
      403,
      "Form refused",
      "This form was not opened in this browser (its CSRF token does not match). Start the sign-in again from the app.",
    );
  }
  const now = ctx.now();
  const consent = await getConsent(ctx.kv, csrf, now);
  const client = consent ? await getClient(ctx.kv, consent.clientId, now) : undefined;
  if (!consent || !client) {
    return problem(
      400,
      "Sign-in expired",
      "This sign-in form has expired or was already answered. Start again from the app.",
    );
  }
  const iss = issuerOf(r.origin);
  if (form.get("decision") === "deny") {
    return redirect(consent.redirectUri, {
      error: "access_denied",
      error_description: "The owner denied access",
      state: consent.state,
      iss,
    }, { "set-cookie": clearCookie() });
  }
  const counters = consentCounters(ctx.settings, { clientId: client.id, address: r.address });
  const tooMany = (full: Counter) =>
    problem(
      429,
      "Too many wrong secrets",
      `Too many wrong secrets (${
        limitText(full, ctx.settings.attemptWindowMs)
      }). Wait and start again.`,
    );
  const refused = await reserveAttempt(ctx.kv, counters, ctx.settings.attemptWindowMs, now);
  if (refused !== undefined) return tooMany(refused);
  if (!secretMatches(form.get("secret") ?? "", ctx.ownerSecret)) {
    const full = await exhaustedCounter(ctx.kv, counters, now);
    if (full !== undefined) return tooMany(full);
    return consentPage(
      ctx,
      client,
      consent.redirectUri,
      csrf,
      403,
      "That is not the owner secret.",
    );
  }
  await releaseAttempt(ctx.kv, counters, now);
  const approved = await approveConsent(ctx.kv, csrf, ctx.settings.codeTtlMs, now);
  if (!approved) {
    return problem(400, "Sign-in expired", "This sign-in form was already answered or expired.");
  }
  return redirect(
    consent.redirectUri,
    { code: approved.code, state: consent.state, iss },
    { "set-cookie": clearCookie() },
  );
}

function consentPage(
  ctx: OAuthContext,
  client: ClientRecord,
  redirectUri: string,
  csrf: string,
  status: number,
  problemText: string | undefined,
  headers: Record<string, string> = {},
): Response {
  const html = renderConsent({
    clientName: client.name,
    clientId: client.id,
    redirectHost: new URL(redirectUri).host,
    ...(client.metadataDocument ? { documentHost: new URL(client.id).host } : {}),
    csrf,
    problem: problemText,
    ownerSecretSet: ctx.settings.ownerSecret !== undefined,
  });
  return new Response(html, { status, headers: { ...PAGE_HEADERS, ...headers } });
}

function problem(status: number, title: string, message: string): Response {
  return new Response(renderProblem(title, message), { status, headers: PAGE_HEADERS });
}

/** A 303 back to the client's redirect URI with `params` added to its query. */
function redirect(
  redirectUri: string,
  params: Record<string, string | undefined>,
  headers: Record<string, string> = {},
): Response {
  const target = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined) target.searchParams.set(name, value);
  }
  return new Response(null, {
    status: 303,
    headers: { location: target.href, "cache-control": "no-store", ...headers },
  });
}

function clearCookie(): string {
  return `${CSRF_COOKIE}=; Path=/authorize; HttpOnly; SameSite=Strict; Max-Age=0`;
}
