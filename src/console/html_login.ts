/** The sign-in page and the pages that refuse a request. */

import { csrfField, esc, notice, plainPage } from "./html_layout.ts";

/** The sign-in form: one password field, the owner secret. */
export function loginPage(secretName: string, csrf: string, problem?: string): string {
  return plainPage(
    "Sign in",
    `<h1>Sign in to the owner console</h1>
<section>
<p>This console acts in your name on everything this server stores: decisions, messages, handoffs and connected apps.</p>
${notice("problem", problem)}
<form method="post" action="/console/login">
${csrfField(csrf)}
<label for="secret">Owner secret (${esc(secretName)})</label>
<input type="password" id="secret" name="secret" autocomplete="current-password" required autofocus>
<button class="primary" type="submit">Sign in</button>
</form></section>`,
  );
}

/** A refusal (bad form, missing CSRF token, not signed in) with a way on. */
export function refusalPage(title: string, message: string): string {
  return plainPage(
    title,
    `<h1>${esc(title)}</h1><section>${
      notice("problem", message)
    }<p><a href="/console">Back to the console</a></p></section>`,
  );
}
