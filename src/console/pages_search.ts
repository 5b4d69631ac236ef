/** `GET /console/search` and `GET /console/item/:id`: the search box and each result's page. */

import { AppError } from "../kit/errors.ts";
import { fetchItem, search } from "../search/service.ts";
import { type ConsoleCtx, frameOf, type Signed } from "./context.ts";
import { itemPage, searchPage } from "./html_search.ts";
import { html } from "./web.ts";

function searchOf(ctx: ConsoleCtx) {
  if (ctx.search === undefined) {
    throw new AppError("not_found", "Search is off: the search toolset is not enabled (TOOLSETS)");
  }
  return ctx.search;
}

/** `GET /console/search?q=…`: the same ranking and snippets as the `search` tool. */
export async function showSearch(ctx: ConsoleCtx, s: Signed): Promise<Response> {
  const { sources, settings } = searchOf(ctx);
  const query = s.r.url.searchParams.get("q") ?? "";
  const cursor = s.r.url.searchParams.get("cursor") ?? undefined;
  if (query.trim() === "") return html(200, searchPage("", undefined, undefined, frameOf(ctx, s)));
  try {
    const answer = await search(ctx.kv, sources, settings, s.r.origin, { query, cursor });
    return html(200, searchPage(query, answer, undefined, frameOf(ctx, s)));
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return html(400, searchPage(query, undefined, error.message, frameOf(ctx, s)));
  }
}

/** `GET /console/item/:id`: one result, read-only. */
export async function showItem(ctx: ConsoleCtx, s: Signed): Promise<Response> {
  const { sources } = searchOf(ctx);
  const { kind, item } = await fetchItem(ctx.kv, sources, s.params.id);
  return html(200, itemPage(kind, item, frameOf(ctx, s)));
}
