/**
 * A stand-in browser for clients that open the authorization URL themselves (mcp-remote, through
 * `BROWSER`): run as `oauth_browser.ts <url>`, it opens the consent page, approves with the
 * owner secret from `COMPAT_OWNER_SECRET` as tests/support/oauth.ts does, and follows the
 * redirect back to the client's loopback callback. What it did is appended to `COMPAT_BROWSER_LOG`.
 */

import { openConsent, submitConsent } from "./oauth.ts";

/** Approves the sign-in at `url` and delivers the code to the client's callback. */
async function consentAndReturn(url: string, secret: string): Promise<string> {
  const form = await openConsent(url);
  if (form.status !== 200) return `consent page answered ${form.status}`;
  const res = await submitConsent(url, form, { csrf: form.csrf, secret, decision: "approve" });
  await res.body?.cancel();
  const location = res.headers.get("location");
  if (res.status !== 303 || !location) return `consent answered ${res.status}`;
  const back = await fetch(location);
  await back.body?.cancel();
  return `approved; callback ${new URL(location).origin} answered ${back.status}`;
}

if (import.meta.main) {
  const url = Deno.args[0] ?? "";
  const secret = Deno.env.get("COMPAT_OWNER_SECRET") ?? "";
  const outcome = await consentAndReturn(url, secret).catch((e) => `failed: ${e}`);
  const log = Deno.env.get("COMPAT_BROWSER_LOG");
  if (log) await Deno.writeTextFile(log, `${url}\n${outcome}\n`, { append: true });
}
