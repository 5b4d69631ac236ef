/** The consent page: plain server-rendered HTML, no script, never framed. */

import { escapeHtml, isolatedHtml } from "../kit/web.ts";

/** Headers of every consent page: no framing, no script, no caching, no referrer. */
export const PAGE_HEADERS: Record<string, string> = {
  "content-type": "text/html; charset=utf-8",
  "content-security-policy":
    "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
  "x-frame-options": "DENY",
  // Not no-referrer: Chromium then sends `Origin: null` with the form, which the loopback
  // guard refuses. same-origin still sends nothing to the client the browser is sent back to.
  "referrer-policy": "same-origin",
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
};

/** What the consent form shows. */
export interface ConsentView {
  clientName: string;
  clientId: string;
  redirectHost: string;
  /** The host of the app's metadata document, when its client id is that document's URL. */
  documentHost?: string;
  csrf: string;
  /** Why the last submission failed, if it did. */
  problem?: string;
  /** Whether the secret asked for is `OAUTH_OWNER_SECRET` (else `AUTH_TOKEN`). */
  ownerSecretSet: boolean;
}

/** The consent form; the app's name and address are shown direction-isolated (`isolatedHtml`). */
export function renderConsent(view: ConsentView): string {
  const secretName = view.ownerSecretSet ? "OAUTH_OWNER_SECRET" : "AUTH_TOKEN";
  const problem = view.problem === undefined
    ? ""
    : `<p class="problem" role="alert">${escapeHtml(view.problem)}</p>`;
  return page(
    "Connect an app to handoff-mcp",
    `<h1>Connect <q>${isolatedHtml(view.clientName)}</q>?</h1>
<p>An app that calls itself <strong>${
      isolatedHtml(view.clientName)
    }</strong> asks to use this handoff-mcp server: read and write everything stored here, under that name.</p>
<dl>
<dt>It will be sent back to</dt><dd><strong>${isolatedHtml(view.redirectHost)}</strong></dd>
${
      view.documentHost === undefined
        ? ""
        : `<dt>It is described by a document at</dt><dd><strong>${
          isolatedHtml(view.documentHost)
        }</strong></dd>\n`
    }<dt>Client id</dt><dd><code>${isolatedHtml(view.clientId)}</code></dd>
</dl>
<p>The name is chosen by the app itself${
      view.documentHost === undefined
        ? ""
        : " (in the document, which whoever runs that host controls)"
    }; approve only if you just started connecting it and the addresses above are the app you expect.</p>
${problem}
<form method="post" action="/authorize">
<input type="hidden" name="csrf" value="${escapeHtml(view.csrf)}">
<label>Owner secret (${secretName})<br><input type="password" name="secret" autocomplete="current-password" required autofocus></label>
<p><button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny" formnovalidate>Deny</button></p>
</form>`,
  );
}

/** A page that explains why the request cannot go on (nothing is sent back to the app). */
export function renderProblem(title: string, message: string): string {
  return page(title, `<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(message)}</p>`);
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem}
dt{font-weight:600}dd{margin:0 0 .5rem}.problem{color:#a00;font-weight:600}
input{font:inherit;width:100%;padding:.3rem}button{font:inherit;padding:.3rem 1rem}</style>
</head><body>
${body}
</body></html>
`;
}
