/**
 * `GET /view` and `GET /view/<discussion_id>`: read-only pages for people, behind `VIEW_TOKEN`
 * (not the MCP token: these routes are public to the router and check their own key). The key
 * arrives once as `?key=`, moves into an HttpOnly SameSite=Strict cookie and is dropped from the
 * address; `Authorization: Bearer` works for scripts.
 */

import { secretMatches } from "../kit/secret.ts";
import { AppError } from "../kit/errors.ts";
import { bearerToken, cookieValue, plain, type Route } from "../kit/web.ts";
import type { TableSettings } from "./settings.ts";
import type { TableCtx } from "./store_common.ts";
import { getWorkspaceContext } from "./store_context.ts";
import type { Message } from "./store_discussions.ts";
import { getDiscussion } from "./store_discussion_page.ts";
import { discussionPage, keyPage, problemPage, workspacePage } from "./view_html.ts";

/** The cookie the view key is kept in. */
const VIEW_COOKIE = "table_view_key";

const SECURITY_HEADERS = {
  "content-security-policy":
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
};

function html(status: number, body: string, headers: Record<string, string> = {}): Response {
  return new Response(body, {
    status,
    headers: { "content-type": "text/html; charset=utf-8", ...SECURITY_HEADERS, ...headers },
  });
}

/** The `/view` routes; without `VIEW_TOKEN` they answer 404 as if absent. */
export function viewRoutes(ctx: TableCtx): Route[] {
  const guard =
    (serve: (req: Request, url: URL, id?: string) => Promise<Response>) =>
    async (req: Request, { url, params }: { url: URL; params: Record<string, string> }) => {
      const token = ctx.settings.viewToken;
      if (token === undefined) return plain(404, "Not found");
      const key = url.searchParams.get("key");
      if (key !== null) {
        if (!secretMatches(key, token)) return html(401, keyPage("mismatch"));
        const clean = new URL(url);
        clean.searchParams.delete("key");
        const secure = url.protocol === "https:" ? "; Secure" : "";
        return new Response(null, {
          status: 303,
          headers: {
            location: clean.pathname + clean.search,
            "set-cookie": `${VIEW_COOKIE}=${key}; Path=/view; HttpOnly; SameSite=Strict${secure}`,
            ...SECURITY_HEADERS,
          },
        });
      }
      const presented = bearerToken(req) ?? cookieValue(req, VIEW_COOKIE);
      if (presented === undefined) return html(401, keyPage("missing"));
      if (!secretMatches(presented, token)) return html(401, keyPage("mismatch"));
      return await serve(req, url, params.id);
    };
  return [
    { path: "view", public: true, methods: { GET: guard((_req, url) => workspaceView(ctx, url)) } },
    {
      path: "view/:id",
      public: true,
      methods: { GET: guard((_req, _url, id) => discussionView(ctx, id!)) },
    },
  ];
}

async function workspaceView(ctx: TableCtx, url: URL): Promise<Response> {
  const workspace = url.searchParams.get("workspace") || undefined;
  const viewer = { name: "view", via: "default" as const };
  try {
    const c = await getWorkspaceContext(ctx, viewer, {
      workspace,
      limit: ctx.settings.limits.pageMax,
    });
    return html(200, workspacePage(c, ctx.settings.viewTimeZone));
  } catch (error) {
    if (error instanceof AppError) return html(400, errorPage(error, ctx.settings));
    throw error;
  }
}

async function discussionView(ctx: TableCtx, id: string): Promise<Response> {
  try {
    const messages: Message[] = [];
    let after = 0;
    for (;;) {
      const page = await getDiscussion(ctx, {
        discussion_id: id,
        after_seq: after,
        limit: ctx.settings.limits.pageMax,
      });
      messages.push(...page.messages);
      if (!page.has_more) {
        return html(200, discussionPage(page.discussion, messages, ctx.settings.viewTimeZone));
      }
      after = page.messages.at(-1)!.seq;
    }
  } catch (error) {
    if (error instanceof AppError) {
      return html(error.kind === "not_found" ? 404 : 400, errorPage(error, ctx.settings));
    }
    throw error;
  }
}

function errorPage(error: AppError, settings: TableSettings): string {
  return problemPage(error.message, settings.defaultWorkspace, settings.viewTimeZone);
}
