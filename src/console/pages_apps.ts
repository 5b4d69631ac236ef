/** The console's apps page: list, revoke, approve a waiting sign-in; token names and settings. */

import { approvePendingSignIn, pendingSignIns } from "../oauth/pending.ts";
import { isMetadataClientId } from "../oauth/cimd.ts";
import { CLIENT_ID_MAX_CHARS, deleteClient, listClients } from "../oauth/store_clients.ts";
import { type ConsoleCtx, frameOf, type Signed } from "./context.ts";
import { appsPage } from "./html_apps.ts";
import { doneAt, doneNotice } from "./notices.ts";
import { html, seeOther } from "./web.ts";

/** `GET /console/apps`. */
export async function showApps(
  ctx: ConsoleCtx,
  s: Signed,
  problem?: { status: number; text: string },
): Promise<Response> {
  const now = ctx.now();
  const on = ctx.oauth.enabled;
  const [clients, pending] = on
    ? await Promise.all([listClients(ctx.kv, now), pendingSignIns(ctx.kv, now)])
    : [[], []];
  return html(
    problem?.status ?? 200,
    appsPage({
      oauthOn: on,
      clients,
      pending,
      tokenNames: ctx.tokenNames,
      settings: ctx.summary,
      done: doneNotice(s.r.url),
      problem: problem?.text,
    }, frameOf(ctx, s)),
  );
}

const ID = /^[A-Za-z0-9_-]{1,128}$/;

/** `POST /console/apps`: `action=revoke` with `client_id`, or `action=approve` with `sign_in`. */
export async function actOnApps(
  ctx: ConsoleCtx,
  s: Signed,
  form: URLSearchParams,
): Promise<Response> {
  const again = (text: string, status = 400) => showApps(ctx, s, { status, text });
  if (!ctx.oauth.enabled) return await again("OAuth sign-in is off on this server (OAUTH=on).");
  const action = form.get("action");
  if (action === "revoke") {
    const id = form.get("client_id") ?? "";
    // A registered client's id, or the URL of a client's metadata document.
    const wellFormed = ID.test(id) || (isMetadataClientId(id) && id.length <= CLIENT_ID_MAX_CHARS);
    if (!wellFormed || !await deleteClient(ctx.kv, id)) {
      return await again(
        `No app has client id "${id.slice(0, 60)}" (it may be revoked already).`,
        404,
      );
    }
    return seeOther(doneAt("/console/apps", "revoked"));
  }
  if (action === "approve") {
    const id = form.get("sign_in") ?? "";
    const target = ID.test(id)
      ? await approvePendingSignIn(ctx.kv, ctx.oauth, id, s.r.origin, ctx.now())
      : undefined;
    if (target === undefined) {
      return await again(
        "That sign-in has expired or was already answered. Start it again from the app.",
        404,
      );
    }
    return seeOther(target);
  }
  return await again("action must be revoke or approve");
}
