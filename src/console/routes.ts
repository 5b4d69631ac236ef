/**
 * The owner console's routes (public to the router: they check their own sign-in). Built by
 * `ownerConsole()` in `console.ts`; every signed-in route passes the session guard here, and
 * every POST its CSRF token.
 */

import { randomSecret } from "../oauth/crypto.ts";
import { clientAddress } from "../oauth/metadata.ts";
import {
  type Counter,
  exhaustedCounter,
  limitText,
  ownerSecretCounters,
  releaseAttempt,
  reserveAttempt,
} from "../oauth/store_attempts.ts";
import { secretMatches } from "../kit/secret.ts";
import { cookieValue, type Route, type RouteContext } from "../kit/web.ts";
import type { ConsoleCtx, Signed } from "./context.ts";
import { loginPage, refusalPage } from "./html_login.ts";
import { actOnApps, showApps } from "./pages_apps.ts";
import { downloadExport, runImport, showImport } from "./pages_import.ts";
import { showItem, showSearch } from "./pages_search.ts";
import {
  actOnHandoff,
  actOnTask,
  orProblem,
  postHere,
  resolveHere,
  showDecision,
  showDiscussion,
  showHandoff,
  showTask,
  showWaiting,
} from "./pages_table.ts";
import { createSession, endSession } from "./store_sessions.ts";
import { CONSOLE_HEADERS, consoleRequest, html, readForm, seeOther, sessionOf } from "./web.ts";

type Page = (ctx: ConsoleCtx, s: Signed) => Promise<Response>;
type Action = (ctx: ConsoleCtx, s: Signed, form: URLSearchParams) => Promise<Response>;

/** How long the sign-in form's CSRF cookie lives, in seconds. */
const LOGIN_FORM_SECONDS = 600;

/** The console's routes over `ctx`. */
export function consoleRoutes(ctx: ConsoleCtx): Route[] {
  const secret = ctx.settings.ownerSecret;
  const signed = async (req: Request, rc: RouteContext) => {
    const r = consoleRequest(req, rc.url, ctx.oauth);
    const session = await sessionOf(ctx.kv, r, secret, ctx.now());
    return { r, session, params: rc.params };
  };
  const page = (show: Page) => async (req: Request, rc: RouteContext) => {
    const { r, session, params } = await signed(req, rc);
    if (session === undefined) return seeOther("/console/login");
    return await orProblem(() => show(ctx, { r, session, params }));
  };
  const action = (act: Action) => async (req: Request, rc: RouteContext) => {
    const { r, session, params } = await signed(req, rc);
    if (session === undefined) {
      await req.body?.cancel();
      return html(401, refusalPage("Signed out", "Sign in again at /console/login, then resend."));
    }
    const form = await readForm(r, session.csrf);
    if (form instanceof Response) return form;
    return await orProblem(() => act(ctx, { r, session, params }, form));
  };
  // An upload checks its CSRF token itself, as it streams (multipart.ts), never reading it whole.
  const upload = (act: Page) => async (req: Request, rc: RouteContext) => {
    const { r, session, params } = await signed(req, rc);
    if (session === undefined) {
      await req.body?.cancel();
      return html(401, refusalPage("Signed out", "Sign in again at /console/login, then resend."));
    }
    return await orProblem(() => act(ctx, { r, session, params }));
  };
  const both = (path: string, show: Page, act: Action): Route => ({
    path,
    public: true,
    methods: { GET: page(show), POST: action(act) },
  });
  return [
    { path: "console", public: true, methods: { GET: page(showWaiting) } },
    {
      path: "console/login",
      public: true,
      methods: {
        GET: (req, rc) => showLogin(ctx, req, rc),
        POST: (req, rc) => login(ctx, req, rc),
      },
    },
    {
      path: "console/logout",
      public: true,
      methods: {
        POST: action(async (_ctx, s) => {
          await endSession(ctx.kv, s.session.token);
          return seeOther("/console/login", {
            "set-cookie": s.r.cookies.clear(s.r.cookies.session),
          });
        }),
      },
    },
    both("console/decisions/:id", showDecision, resolveHere),
    both("console/discussions/:id", showDiscussion, postHere),
    both("console/handoffs/:id", showHandoff, actOnHandoff),
    both("console/tasks/:id", showTask, actOnTask),
    both("console/apps", showApps, actOnApps),
    {
      path: "console/import",
      public: true,
      methods: { GET: page(showImport), POST: upload(runImport) },
    },
    { path: "console/export.zip", public: true, methods: { GET: page(downloadExport) } },
    { path: "console/search", public: true, methods: { GET: page(showSearch) } },
    { path: "console/item/:id", public: true, methods: { GET: page(showItem) } },
  ];
}

/** `GET /console/login`: the form, with a fresh CSRF token in a cookie of its own. */
async function showLogin(ctx: ConsoleCtx, req: Request, rc: RouteContext): Promise<Response> {
  const r = consoleRequest(req, rc.url, ctx.oauth);
  if (await sessionOf(ctx.kv, r, ctx.settings.ownerSecret, ctx.now())) return seeOther("/console");
  const csrf = randomSecret();
  return html(200, loginPage(ctx.settings.secretName, csrf), {
    "set-cookie": r.cookies.set(r.cookies.login, csrf, LOGIN_FORM_SECONDS),
  });
}

/**
 * `POST /console/login`. Wrong secrets are counted per address and in total in the OAuth
 * limiter's window (the same counters the consent page uses), before the comparison, so tries
 * sent at once stay within `OAUTH_MAX_FAILED_ATTEMPTS` and `OAUTH_MAX_FAILED_ATTEMPTS_TOTAL`; a
 * right secret gives its try back.
 */
async function login(ctx: ConsoleCtx, req: Request, rc: RouteContext): Promise<Response> {
  const r = consoleRequest(req, rc.url, ctx.oauth);
  const expected = cookieValue(req, r.cookies.login);
  if (!expected) {
    await req.body?.cancel();
    return html(
      403,
      refusalPage("Form refused", "Open the sign-in page in this browser first, then send it."),
    );
  }
  const form = await readForm(r, expected);
  if (form instanceof Response) return form;
  const now = ctx.now();
  const counters = ownerSecretCounters(ctx.oauth, clientAddress(req, ctx.oauth, rc.info));
  const tooMany = (full: Counter) =>
    html(
      429,
      loginPage(
        ctx.settings.secretName,
        expected,
        `Too many wrong secrets (${
          limitText(full, ctx.oauth.attemptWindowMs)
        }). Wait and try again.`,
      ),
    );
  const refused = await reserveAttempt(ctx.kv, counters, ctx.oauth.attemptWindowMs, now);
  if (refused !== undefined) return tooMany(refused);
  if (!secretMatches(form.get("secret"), ctx.settings.ownerSecret)) {
    const full = await exhaustedCounter(ctx.kv, counters, now);
    if (full !== undefined) return tooMany(full);
    return html(
      401,
      loginPage(ctx.settings.secretName, expected, "That is not the owner secret."),
    );
  }
  await releaseAttempt(ctx.kv, counters, now);
  const token = await createSession(ctx.kv, ctx.settings.ownerSecret, ctx.settings.sessionMs, now);
  const headers = new Headers({ location: "/console", ...CONSOLE_HEADERS });
  headers.append(
    "set-cookie",
    r.cookies.set(r.cookies.session, token, Math.floor(ctx.settings.sessionMs / 1000)),
  );
  headers.append("set-cookie", r.cookies.clear(r.cookies.login));
  return new Response(null, { status: 303, headers });
}
