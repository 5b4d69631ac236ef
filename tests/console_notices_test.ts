/**
 * Console notices come from a fixed set the server chose (issue 23, case 13): `?done=` names one
 * of them, and text of the URL's own is never shown.
 */

import assert from "node:assert/strict";
import { DONE_NOTICES } from "../src/console/notices.ts";
import { fetchSignIn, seededConsole } from "./support/console.ts";

/** The text of the page's success notice, or `undefined` when it has none. */
function doneText(page: string): string | undefined {
  return page.match(/<p class="done" role="status">([^<]*)<\/p>/)?.[1];
}

Deno.test("?done= shows a fixed sentence by name, and nothing for any other text", async () => {
  const seeded = await seededConsole();
  const { server } = seeded;
  try {
    const s = await fetchSignIn(server.origin);
    const get = async (path: string) =>
      await (await fetch(`${server.origin}${path}`, { headers: { cookie: s.cookie } })).text();
    const forged = encodeURIComponent("Your session expired: sign in again at evil.example");
    for (
      const path of [
        "/console",
        "/console/apps",
        `/console/decisions/${seeded.decisionId}`,
        `/console/handoffs/${seeded.handoffId}`,
        `/console/discussions/${seeded.discussionId}`,
      ]
    ) {
      const join = path.includes("?") ? "&" : "?";
      const page = await get(`${path}${join}done=${forged}`);
      assert.equal(doneText(page), undefined, `${path} shows no notice for unknown text`);
      assert.doesNotMatch(page, /evil\.example/, path);
      assert.equal(doneText(await get(`${path}${join}done=toString`)), undefined, path);
    }
    const accepted = await get(`/console/handoffs/${seeded.handoffId}?done=accepted`);
    assert.equal(doneText(accepted), DONE_NOTICES.accepted);

    // A real write redirects with the notice's name, and the page shows its sentence.
    const res = await fetch(`${server.origin}/console/decisions/${seeded.decisionId}`, {
      method: "POST",
      redirect: "manual",
      headers: { cookie: s.cookie, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrf: s.csrf, verdict: "approve", reason: "fine" }),
    });
    assert.equal(res.status, 303);
    const location = res.headers.get("location")!;
    assert.match(location, /\?done=approved$/);
    await res.body?.cancel();
    assert.equal(doneText(await get(location)), DONE_NOTICES.approved);
  } finally {
    await server.close();
  }
});
