/**
 * The owner console in headless Chromium, driven as a person would with the keyboard-reachable
 * forms, and checked over MCP with an SDK client: what the person did arrives with its proof
 * and author. Screenshots: tests/screenshots/console_*.png.
 */

import assert from "node:assert/strict";
import { browserTest, type Page, screenshotPath } from "./support/browser.ts";
import { codexClient, OWNER_SECRET, seededConsole, value } from "./support/console.ts";
import { MemoryProvider, REDIRECT_URI, signIn } from "./support/oauth.ts";
import { mcpStatus } from "./support/oauth4webapi.ts";

async function shot(page: Page, name: string) {
  await page.screenshot({ path: await screenshotPath(name), fullPage: true });
}

browserTest(
  "console in Chromium: sign in, decide, post (refused without CSRF), accept and hand on, revoke an app, sign out",
  async (browser) => {
    const seeded = await seededConsole();
    const { server } = seeded;
    const app = new MemoryProvider("Claude");
    await signIn(server.origin, app);
    const bearer = app.saved!.access_token;
    assert.equal(await mcpStatus(server.origin, bearer), 200);
    const codex = await codexClient(server.origin);
    const context = await browser.newContext({ viewport: { width: 1000, height: 900 } });
    try {
      const page = await context.newPage();
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(e.message));
      const requests: string[] = [];
      page.on("request", (r) => requests.push(r.url()));

      // Sign in: a wrong secret first, then the right one.
      await page.goto(`${server.origin}/console`);
      assert.equal(new URL(page.url()).pathname, "/console/login");
      await page.getByLabel("Owner secret (OAUTH_OWNER_SECRET)").fill("not-the-secret-at-all");
      await page.keyboard.press("Enter");
      await page.getByRole("alert").waitFor();
      assert.equal(await page.getByRole("alert").textContent(), "That is not the owner secret.");
      await shot(page, "console_login");
      await page.getByLabel("Owner secret (OAUTH_OWNER_SECRET)").fill(OWNER_SECRET);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("heading", { name: "Waiting for Ada" }).waitFor();
      const cookies = await context.cookies();
      assert.deepEqual(cookies.map((c) => [c.name, c.httpOnly, c.sameSite]), [
        ["handoff_console", true, "Strict"],
      ]);
      const waiting = String(await page.locator("main").textContent());
      assert.match(waiting, /Decisions awaiting a verdict \(1\)/);
      assert.match(waiting, /Handoffs to you, stale first \(1\)/);
      assert.match(waiting, /Test the double-charge case/);
      await shot(page, "console_waiting");

      // Resolve the decision; MCP then shows it decided by a person in the console.
      await page.locator(`tr[data-id="${seeded.decisionId}"] a`).click();
      await page.getByRole("heading", { name: "Your verdict" }).waitFor();
      await shot(page, "console_decision");
      await page.getByLabel("Approve").check();
      await page.getByLabel("Reason").fill("Read the thread: one retry, same key.");
      await page.getByRole("button", { name: /Record verdict/ }).click();
      await page.getByRole("status").waitFor();
      assert.match(String(await page.locator("[data-proof]").textContent()), /owner console/);
      await shot(page, "console_decided");
      const decisions = await value(codex, "get_decisions", {});
      const proofOf = (id: string) => decisions.decisions.find((d: { id: string }) => d.id === id);
      const mine = proofOf(seeded.decisionId);
      assert.deepEqual(
        [mine.status, mine.decided_by_kind, mine.decided_via, mine.decided_by],
        ["approved", "human", "console", { name: "Ada", via: "console" }],
      );
      assert.equal(proofOf(seeded.codedId).decided_via, "approval_code");
      assert.equal(proofOf(seeded.relayedId).decided_via, "relayed");
      const listed = await codex.callTool({ name: "get_decisions", arguments: {} });
      const text = (listed.content as { text: string }[])[0].text;
      assert.match(text, /by Ada \(via console\) \(human, proof: a person, in the owner console\)/);
      assert.match(text, /\(human, proof: a person, with the approval code\)/);
      assert.match(text, /\(relayed, proof: relayed by an AI, unproven\)/);

      // The discussion: the stored <script> is text; the person's message reaches MCP.
      await page.goto(`${server.origin}/console/discussions/${seeded.discussionId}`);
      assert.match(String(await page.locator("#seq-1 pre").textContent()), /<script>window/);
      assert.equal(await page.locator("main img").count(), 0, "stored HTML is never parsed");
      assert.equal(await page.evaluate(() => (globalThis as { pwned?: number }).pwned), undefined);
      // The same form with its CSRF token taken out is refused, and nothing is posted.
      await page.locator('form[action^="/console/discussions/"] input[name="csrf"]').evaluate((e) =>
        e.remove()
      );
      await page.getByLabel("Message", { exact: true }).fill("Posted without a token");
      await page.getByRole("button", { name: "Post as Ada" }).click();
      await page.getByRole("heading", { name: "Form refused" }).waitFor();
      assert.match(String(await page.getByRole("alert").textContent()), /CSRF token is missing/);
      const untouched = await value(codex, "get_discussion", {
        discussion_id: seeded.discussionId,
      });
      assert.ok(untouched.messages.every((m: { body: string }) => !/without a token/.test(m.body)));
      await page.goto(`${server.origin}/console/discussions/${seeded.discussionId}`);
      await page.getByLabel("Message", { exact: true }).fill(
        "Ship it on Friday, after the double-charge test.",
      );
      await page.getByRole("button", { name: "Post as Ada" }).click();
      await page.getByRole("status").waitFor();
      await shot(page, "console_discussion");
      const thread = await value(codex, "get_discussion", { discussion_id: seeded.discussionId });
      const [note, posted] = thread.messages.slice(-2);
      assert.deepEqual(note.author, { name: "Ada", via: "console" });
      assert.match(note.body, /in the owner console/);
      assert.equal(posted.body, "Ship it on Friday, after the double-charge test.");
      assert.deepEqual(posted.author, { name: "Ada", via: "console" });

      // Accept the handoff, then hand the task on.
      await page.goto(`${server.origin}/console`);
      await page.locator(`tr[data-id="${seeded.handoffId}"] a`).click();
      await page.getByRole("heading", { name: "Accept", exact: true }).waitFor();
      await shot(page, "console_handoff");
      await page.getByRole("button", { name: "Accept this handoff" }).click();
      await page.getByRole("status").waitFor();
      const accepted = await value(codex, "get_handoffs", {});
      const h = accepted.handoffs.find((x: { id: string }) => x.id === seeded.handoffId);
      assert.deepEqual([h.state, h.accepted_by], ["accepted", { name: "Ada", via: "console" }]);
      const handoffUrl = page.url();
      await page.goto(`${server.origin}/console`);
      await page.locator(`tr[data-id="${h.task_id}"] a`).click();
      await page.getByRole("heading", { name: "Hand the task on" }).waitFor();
      assert.match(String(await page.locator("main").textContent()), /in_progress.*Ada/s);
      await shot(page, "console_task");
      await page.goto(handoffUrl);
      await page.getByLabel("To (a name or team)").fill("claude");
      await page.getByLabel("Context for them").fill("Mock is ready; write the test.");
      await page.getByRole("button", { name: "Hand the task on" }).click();
      await page.getByRole("status").waitFor();
      const onward = await value(codex, "get_handoffs", { to: "claude" });
      assert.deepEqual(
        [onward.handoffs[0].from, onward.handoffs[0].context],
        [{ name: "Ada", via: "console" }, "Mock is ready; write the test."],
      );

      // Apps: the signed-in app is listed; revoking it stops its bearer at once.
      await page.goto(`${server.origin}/console/apps`);
      const row = page.locator(`tr[data-id="${app.client!.client_id}"]`);
      assert.match(String(await row.textContent()), /Claude.*127\.0\.0\.1:9/s);
      assert.match(String(await page.locator("main").textContent()), /codex/);
      await shot(page, "console_apps");
      await row.getByRole("button", { name: /Revoke/ }).click();
      await page.getByRole("status").waitFor();
      assert.equal(await mcpStatus(server.origin, bearer), 401);

      // Sign out: the cookie is gone, and the console asks to sign in again.
      await page.getByRole("button", { name: "Sign out" }).click();
      await page.getByRole("button", { name: "Sign in" }).waitFor();
      await page.goto(`${server.origin}/console/apps`);
      assert.equal(new URL(page.url()).pathname, "/console/login");
      assert.deepEqual(errors, []);
      assert.ok(requests.every((u) => u.startsWith(server.origin)), "no external asset");
    } finally {
      await codex.close();
      await context.close();
      await server.close();
    }
  },
);

browserTest(
  "console in Chromium: never framed; a pending sign-in approved from the console",
  async (browser) => {
    const { server } = await seededConsole();
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${server.origin}/console/login`);
      await page.getByLabel(/Owner secret/).fill(OWNER_SECRET);
      await page.keyboard.press("Enter");
      await page.getByRole("heading", { name: "Waiting for Ada" }).waitFor();

      // Another page frames the console: Chromium refuses to render it.
      const framer = await context.newPage();
      await framer.setContent(`<iframe src="${server.origin}/console"></iframe>`);
      const child = framer.frames()[1];
      await child.waitForLoadState();
      assert.match(child.url(), /^chrome-error:/, "the framed console is not rendered");
      const shown = String(await child.locator("body").textContent());
      assert.match(shown, /ERR_BLOCKED_BY_RESPONSE/);
      assert.doesNotMatch(shown, /owner console/);

      // An app starts signing in; the owner approves it from the console instead of the consent page.
      const app = new MemoryProvider("Codex desktop");
      const { StreamableHTTPClientTransport, Client, UnauthorizedError } = await import(
        "../src/client/sdk_client.ts"
      );
      const transport = new StreamableHTTPClientTransport(new URL(`${server.origin}/mcp`), {
        authProvider: app,
      });
      await assert.rejects(
        new Client({ name: "c", version: "1" }).connect(transport),
        UnauthorizedError,
      );
      const consent = await fetch(app.authorizationUrl!);
      assert.equal(consent.status, 200, "the consent form is open: the sign-in is pending");
      await consent.body?.cancel();
      await page.goto(`${server.origin}/console/apps`);
      // The browser is sent back to the app's redirect URI (port 9, which Chromium never opens).
      const answer = page.waitForResponse((r) => r.request().method() === "POST");
      await page.getByRole("button", { name: /Approve Codex desktop/ }).click();
      const location = (await answer).headers()["location"];
      assert.ok(location.startsWith(`${REDIRECT_URI}?`), location);
      const back = new URL(location).searchParams;
      assert.equal(back.get("state"), app.expectedState);
      assert.equal(back.get("iss"), `${server.origin}/`);
      await transport.finishAuth(back.get("code")!);
      assert.equal(await mcpStatus(server.origin, app.saved!.access_token), 200);
    } finally {
      await context.close();
      await server.close();
    }
  },
);
