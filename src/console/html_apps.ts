/** `/console/apps`: OAuth apps (revoke), sign-ins waiting (approve), token names and settings. */

import type { PendingSignIn } from "../oauth/pending.ts";
import type { ClientSummary } from "../oauth/store_clients.ts";
import { at, bdi, csrfField, esc, type Frame, notice, page } from "./html_layout.ts";

/** What the apps page shows. */
export interface AppsView {
  oauthOn: boolean;
  clients: ClientSummary[];
  pending: PendingSignIn[];
  /** Names of the `AUTH_TOKENS` entries; never their values. */
  tokenNames: string[];
  /** Settings that matter, as name and value, read-only. */
  settings: [string, string][];
  done?: string;
  problem?: string;
}

function hosts(uris: string[]): string {
  return [...new Set(uris.map((u) => new URL(u).host))].map((h) => bdi(h)).join(", ");
}

/** The page at `/console/apps`. */
export function appsPage(v: AppsView, frame: Frame): string {
  const t = (when: string | number | undefined) =>
    when === undefined ? `<span class="meta">never</span>` : at(when, frame.zone);
  const form = (action: string, field: string, id: string, label: string, cls = "") =>
    `<form class="inline" method="post" action="/console/apps">${
      csrfField(frame.csrf)
    }<input type="hidden" name="action" value="${action}"><input type="hidden" name="${field}" value="${
      esc(id)
    }"><button type="submit"${cls ? ` class="${cls}"` : ""}>${label}</button></form>`;
  const apps = v.clients.length === 0
    ? `<p class="meta">No app is registered.</p>`
    : `<table><thead><tr><th scope="col">App</th><th scope="col">Client id</th><th scope="col">Approved</th><th scope="col">Last used</th><th scope="col">Returns to</th><th scope="col">Grants</th><th scope="col"><span class="skip">Action</span></th></tr></thead><tbody>
${
      v.clients.map(({ client: c, grants }) =>
        `<tr data-id="${esc(c.id)}"><td>${bdi(c.name)}</td><td><code>${esc(c.id)}</code></td><td>${
          t(c.approvedAt)
        }${
          c.approvedAt === undefined && c.unapprovedUntil !== undefined
            ? ` <span class="meta">(expires ${at(c.unapprovedUntil, frame.zone)})</span>`
            : ""
        }</td><td>${t(c.lastUsedAt)}</td><td>${hosts(c.redirectUris)}</td><td>${grants}</td><td>${
          form(
            "revoke",
            "client_id",
            c.id,
            `Revoke <span class="skip">${bdi(c.name)}</span>`,
            "danger",
          )
        }</td></tr>`
      ).join("\n")
    }</tbody></table>`;
  const pending = v.pending.length === 0
    ? `<p class="meta">No sign-in is waiting.</p>`
    : `<table><thead><tr><th scope="col">App</th><th scope="col">Returns to</th><th scope="col">Form expires</th><th scope="col"><span class="skip">Action</span></th></tr></thead><tbody>
${
      v.pending.map((p) =>
        `<tr data-id="${esc(p.id)}"><td>${bdi(p.clientName)} <code class="meta">${
          esc(p.clientId)
        }</code></td><td>${bdi(p.redirectHost)}</td><td>${at(p.expiresAt, frame.zone)}</td><td>${
          form("approve", "sign_in", p.id, `Approve <span class="skip">${bdi(p.clientName)}</span>`)
        }</td></tr>`
      ).join("\n")
    }</tbody></table>
<p class="meta">Approving sends this browser back to the app with its code, as the consent page does: approve only a sign-in you just started.</p>`;
  const oauth = v.oauthOn
    ? `<section aria-labelledby="h-apps"><h2 id="h-apps">OAuth apps (${v.clients.length})</h2>${apps}
<p class="meta">Revoking removes the app and every token it holds, at once.</p></section>
<section aria-labelledby="h-pending"><h2 id="h-pending">Sign-ins waiting for you (${v.pending.length})</h2>${pending}</section>`
    : `<section aria-labelledby="h-apps"><h2 id="h-apps">OAuth apps</h2><p class="meta">OAuth sign-in is off on this server (OAUTH=on turns it on).</p></section>`;
  const tokens = v.tokenNames.length === 0
    ? `<p class="meta">No named tokens (AUTH_TOKENS) are configured.</p>`
    : `<ul>${v.tokenNames.map((n) => `<li>${bdi(n)}</li>`).join("")}</ul>`;
  const settings = `<dl>${
    v.settings.map(([k, val]) => `<dt>${esc(k)}</dt><dd>${esc(val)}</dd>`).join("")
  }</dl>`;
  const body = `<h1>Apps &amp; settings</h1>
${notice("done", v.done)}${notice("problem", v.problem)}
${oauth}
<section aria-labelledby="h-tokens"><h2 id="h-tokens">Named tokens</h2>${tokens}
<p class="meta">Names only: a token's value is never shown.</p></section>
<section aria-labelledby="h-settings"><h2 id="h-settings">Settings (read-only)</h2>${settings}</section>`;
  return page("Apps & settings", { ...frame, current: "apps" }, body);
}
