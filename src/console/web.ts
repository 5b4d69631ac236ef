/**
 * The console's HTTP plumbing: its headers (no framing, no script), cookies (`__Host-` over
 * https), the session guard, and form posts checked for their session, CSRF token and origin.
 */

import { AppError } from "../kit/errors.ts";
import { secretMatches } from "../kit/secret.ts";
import { cookieValue, readText } from "../kit/web.ts";
import { publicOrigin } from "../oauth/metadata.ts";
import type { OAuthSettings } from "../oauth/settings.ts";
import { refusalPage } from "./html_login.ts";
import { csrfOf, sessionIsLive } from "./store_sessions.ts";

/** Headers of every console page: never framed, nothing but inline style, nothing cached. */
export const CONSOLE_HEADERS: Record<string, string> = {
  "content-security-policy":
    "default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; base-uri 'none'; frame-ancestors 'none'",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  // Not no-referrer: Chromium would then send `Origin: null` with a form, which the loopback
  // guard (and the origin check below) refuse.
  "referrer-policy": "same-origin",
  "cache-control": "no-store",
};

/** Largest form accepted, in bytes: a message at its size limit, URL-encoded, fits. */
export const CONSOLE_FORM_MAX_BYTES = 256 * 1024;

/** An HTML response with the console's headers. */
export function html(status: number, body: string, headers: Record<string, string> = {}): Response {
  return new Response(body, {
    status,
    headers: { "content-type": "text/html; charset=utf-8", ...CONSOLE_HEADERS, ...headers },
  });
}

/** A 303 to `location`, e.g. after a form succeeded. */
export function seeOther(location: string, headers: Record<string, string> = {}): Response {
  return new Response(null, { status: 303, headers: { location, ...CONSOLE_HEADERS, ...headers } });
}

/** The two cookies, named for the request's scheme (`__Host-` needs Secure and Path=/). */
export interface Cookies {
  session: string;
  login: string;
  set(name: string, value: string, maxAgeSeconds: number): string;
  clear(name: string): string;
}

/** The cookies of a request that reached the server at `origin`. */
export function cookiesFor(origin: string): Cookies {
  const https = origin.startsWith("https:");
  const attrs = https ? "; Path=/; Secure" : "; Path=/console";
  return {
    session: https ? "__Host-handoff_console" : "handoff_console",
    login: https ? "__Host-handoff_console_login" : "handoff_console_login",
    set: (name, value, maxAge) =>
      `${name}=${value}${attrs}; HttpOnly; SameSite=Strict; Max-Age=${maxAge}`,
    clear: (name) => `${name}=${attrs}; HttpOnly; SameSite=Strict; Max-Age=0`,
  };
}

/** A request as the console handles it. */
export interface ConsoleRequest {
  req: Request;
  url: URL;
  origin: string;
  cookies: Cookies;
}

/** Builds the console's view of a request. */
export function consoleRequest(req: Request, url: URL, oauth: OAuthSettings): ConsoleRequest {
  const origin = publicOrigin(req, oauth);
  return { req, url, origin, cookies: cookiesFor(origin) };
}

/** A signed-in request: its session token and the CSRF token of that session. */
export interface Session {
  token: string;
  csrf: string;
}

/** The live session of `r`, or `undefined`. */
export async function sessionOf(
  kv: Deno.Kv,
  r: ConsoleRequest,
  secret: string,
  now: number,
): Promise<Session | undefined> {
  const token = cookieValue(r.req, r.cookies.session);
  if (!token || !await sessionIsLive(kv, token, secret, now)) return undefined;
  return { token, csrf: await csrfOf(token) };
}

/**
 * Reads a posted form, refusing with a page: not a form (415), from another origin (403), or
 * without the CSRF token `expected` (403). Returns the fields or the refusal.
 */
export async function readForm(
  r: ConsoleRequest,
  expected: string,
): Promise<URLSearchParams | Response> {
  const type = r.req.headers.get("content-type") ?? "";
  if (!type.toLowerCase().startsWith("application/x-www-form-urlencoded")) {
    return html(415, refusalPage("Not a form", "Send forms as application/x-www-form-urlencoded."));
  }
  const origin = r.req.headers.get("origin");
  if (origin !== null && origin !== r.origin) {
    return html(403, refusalPage("Form refused", "This form was sent from another site."));
  }
  let form: URLSearchParams;
  try {
    form = new URLSearchParams(await readText(r.req, CONSOLE_FORM_MAX_BYTES));
  } catch (error) {
    if (error instanceof AppError) return html(400, refusalPage("Bad form", error.message));
    throw error;
  }
  if (!secretMatches(form.get("csrf"), expected)) {
    return html(
      403,
      refusalPage(
        "Form refused",
        "The form's CSRF token is missing or does not match this sign-in. Open the page again and resend.",
      ),
    );
  }
  return form;
}
