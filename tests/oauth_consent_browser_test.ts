/**
 * The consent page in a real browser (headless Chromium): the owner types the secret and
 * approves, the browser follows the redirect back to the client, and the code it carries works;
 * a page on another site cannot frame the consent page.
 */

import assert from "node:assert/strict";
import { browserTest, screenshotPath } from "./support/browser.ts";
import {
  authorizationUrl,
  mcpStatus,
  o,
  oauthWorld,
  OWNER_SECRET,
  redeem,
  REDIRECT_URI,
  registerClient,
} from "./support/oauth4webapi.ts";

browserTest(
  "a browser approves on the consent page and is sent back with a working code",
  async (browser) => {
    const world = await oauthWorld();
    try {
      const reg = await registerClient(world.as, { name: "Claude" });
      const request = await authorizationUrl(world.as, reg.client);
      const page = await browser.newPage({ viewport: { width: 640, height: 720 } });
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(e.message));
      // Nothing listens at the loopback redirect URI: the test stands in for the client there.
      const callback = Promise.withResolvers<string>();
      await page.route(`${REDIRECT_URI}**`, async (route) => {
        callback.resolve(route.request().url());
        await route.fulfill({ status: 200, contentType: "text/plain", body: "signed in" });
      });
      await page.goto(request.url.href);
      assert.match(String(await page.locator("h1").textContent()), /Connect Claude\?/);
      assert.match(String(await page.locator("dl").textContent()), /127\.0\.0\.1:9/);
      await page.screenshot({ path: await screenshotPath("oauth_consent") });

      await page.fill('input[name="secret"]', "not the secret");
      await page.click('button[value="approve"]');
      assert.match(String(await page.locator(".problem").textContent()), /not the owner secret/);
      await page.fill('input[name="secret"]', OWNER_SECRET);
      await page.click('button[value="approve"]');
      const back = new URL(await callback.promise);
      const params = o.validateAuthResponse(world.as, reg.client, back, request.state);
      const tokens = await redeem(world.as, reg, params, request);
      assert.equal(await mcpStatus(world.server.origin, tokens.access_token), 200);
      assert.deepEqual(errors, []);
    } finally {
      await world.close();
    }
  },
);

browserTest("no page can frame the consent page", async (browser) => {
  const world = await oauthWorld();
  try {
    const reg = await registerClient(world.as);
    const request = await authorizationUrl(world.as, reg.client);
    const page = await browser.newPage();
    // frame-ancestors 'none' refuses every parent, its own origin included; a parent on the
    // same loopback origin keeps Chromium's private-network rules out of the picture.
    const host = `${world.server.origin}/framer`;
    await page.route(host, (route) =>
      route.fulfill({
        status: 200,
        contentType: "text/html",
        body: `<iframe id="f" src="${request.url.href}"></iframe>`,
      }));
    await page.goto(host);
    await page.waitForLoadState("load");
    const framed = await page.frameLocator("#f").locator("form").count();
    assert.equal(framed, 0, "the consent form must not render inside a frame");
  } finally {
    await world.close();
  }
});
