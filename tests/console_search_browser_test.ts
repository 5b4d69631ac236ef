/**
 * The console's search page in headless Chromium: the box, results in the `search` tool's order
 * with its snippets, each linking to a read-only page; stored text escaped (no script runs).
 * Screenshot: tests/screenshots/console_search.png.
 */

import assert from "node:assert/strict";
import { browserTest, screenshotPath } from "./support/browser.ts";
import { codexClient, OWNER_SECRET, seededConsole, value } from "./support/console.ts";

browserTest(
  "console in Chromium: search finds what the tool finds, in order, and opens it",
  async (browser) => {
    const { server } = await seededConsole();
    const codex = await codexClient(server.origin);
    const context = await browser.newContext({ viewport: { width: 1000, height: 900 } });
    try {
      const tool = await value(codex, "search", { query: "retry" });
      assert.ok(tool.results.length >= 2, "the seeded discussion and decision mention retries");
      const page = await context.newPage();
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(e.message));
      await page.goto(`${server.origin}/console/login`);
      await page.getByLabel("Owner secret (OAUTH_OWNER_SECRET)").fill(OWNER_SECRET);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("heading", { name: "Waiting for Ada" }).waitFor();

      await page.getByRole("link", { name: "Search" }).click();
      await page.getByLabel("Search everything").fill("retry");
      await page.keyboard.press("Enter");
      await page.locator("ol.results").waitFor();
      const titles = await page.locator("li.result > a").allTextContents();
      assert.deepEqual(titles, tool.results.map((r: { title: string }) => r.title));
      const marks = await page.locator("li.result mark").allTextContents();
      assert.ok(marks.some((m) => m.toLowerCase().startsWith("retry")), marks.join(","));
      await page.screenshot({ path: await screenshotPath("console_search"), fullPage: true });

      // The discussion's message holds a stored <script>: shown as text, never run.
      const first = tool.results.findIndex((r: { kind: string }) => r.kind === "message");
      await page.locator("li.result > a").nth(first).click();
      await page.locator("pre.text").waitFor();
      assert.match(String(await page.locator("pre.text").textContent()), /<script>window.pwned/);
      assert.equal(await page.evaluate(() => (globalThis as { pwned?: number }).pwned), undefined);
      assert.deepEqual(errors, []);

      // A bad query gets the tool's error, on the page.
      await page.goto(`${server.origin}/console/search?q=${encodeURIComponent('"')}`);
      await page.getByRole("alert").waitFor();
      assert.match(String(await page.getByRole("alert").textContent()), /query has no words/);
    } finally {
      await context.close();
      await codex.close();
      await server.close();
    }
  },
);
