/**
 * The table's /view pages: behind VIEW_TOKEN (not the MCP token), no script at all, every stored
 * string escaped. Browser flow in headless Chromium. Screenshots: tests/screenshots/table_view.png
 * and tests/screenshots/table_discussion.png.
 */

import assert from "node:assert/strict";
import {
  Client,
  SSEClientTransport,
  StreamableHTTPClientTransport,
} from "../src/client/sdk_client.ts";
import { randomToken } from "../src/kit/ids.ts";
import { browserTest, screenshotPath } from "./support/browser.ts";
import { call, startServer } from "./support/harness.ts";

const VIEW_TOKEN = randomToken(24);
const CODEX = randomToken(24);
const CLAUDE = randomToken(24);
const EVIL = `<script>window.pwned = 1</script><img src=x onerror="window.pwned = 2"> & "quotes"`;

async function client(url: string, kind: "http" | "sse") {
  const c = new Client({ name: "view-seed", version: "1.0.0" });
  await c.connect(
    kind === "http"
      ? new StreamableHTTPClientTransport(new URL(`${url}/mcp`))
      : new SSEClientTransport(new URL(`${url}/sse`)),
  );
  return c;
}

async function value(c: InstanceType<typeof Client>, tool: string, args: Record<string, unknown>) {
  const r = await call(c, tool, args);
  assert.equal(r.isError, false, r.text);
  return r.structured as Record<string, { id: string }>;
}

/** A server with a realistic table: two AIs, a decision awaiting a person, a task handed off. */
async function seeded(env: Record<string, string> = {}) {
  const server = await startServer({
    env: {
      VIEW_TOKEN,
      AUTH_TOKENS: `codex=${CODEX},claude=${CLAUDE}`,
      VIEW_TIME_ZONE: "Asia/Tokyo",
      TABLE_DEFAULT_WORKSPACE: "acme/shop",
      ...env,
    },
  });
  const codex = await client(`${server.origin}/${CODEX}`, "http");
  const claude = await client(`${server.origin}/${CLAUDE}`, "sse");
  const d = await value(codex, "create_discussion", {
    title: "Checkout: retry failed payments?",
    body: "Proposal: retry a failed card payment once after 10 s, then show the error.",
    kind: "proposal",
  });
  await value(claude, "post_message", {
    discussion_id: d.discussion.id,
    body: "Review: once is fine, but the retry must reuse the idempotency key.\n" + EVIL,
    kind: "review",
    in_reply_to: 1,
  });
  await value(codex, "post_message", {
    discussion_id: d.discussion.id,
    body: "Question: who writes the test for the double-charge case?",
    kind: "question",
  });
  await value(codex, "create_discussion", { title: `Naming ${EVIL}`, body: "Later." });
  await value(claude, "record_decision", {
    title: "Retry card payments once, same idempotency key",
    detail: "See the checkout discussion.",
    discussion_id: d.discussion.id,
  });
  const t = await value(codex, "create_task", { title: "Test the double-charge case" });
  await value(codex, "create_handoff", {
    task_id: t.task.id,
    to: "claude",
    context: "Payment mock is in tests/support/pay.ts",
  });
  await value(codex, "record_plan", { title: "Checkout hardening", body: "1. retry 2. tests" });
  await codex.close();
  await claude.close();
  return { server, discussionId: d.discussion.id };
}

Deno.test("/view without VIEW_TOKEN is absent (404); with it, a missing or wrong key says which", async () => {
  const closed = await startServer();
  try {
    const res = await fetch(`${closed.origin}/view`);
    assert.equal(res.status, 404);
    await res.body?.cancel();
  } finally {
    await closed.close();
  }
  const { server, discussionId } = await seeded();
  try {
    const missing = await fetch(`${server.origin}/view`);
    assert.equal(missing.status, 401);
    assert.match(await missing.text(), /View key missing/);
    const wrong = await fetch(`${server.origin}/view`, {
      headers: { authorization: "Bearer nope" },
    });
    assert.equal(wrong.status, 401);
    assert.match(await wrong.text(), /did not match/);
    const wrongCookie = await fetch(`${server.origin}/view`, {
      headers: { cookie: "table_view_key=stale" },
    });
    assert.match(await wrongCookie.text(), /did not match/);
    // The MCP token does not open the page, and the page is not behind the MCP token's path.
    const mcpToken = await fetch(`${server.origin}/view`, {
      headers: { authorization: `Bearer ${server.token}` },
    });
    assert.equal(mcpToken.status, 401);
    await mcpToken.body?.cancel();
    const behind = await fetch(`${server.origin}/${server.token}/view`);
    assert.equal(behind.status, 404);
    await behind.body?.cancel();
    const bearer = await fetch(`${server.origin}/view/${discussionId}`, {
      headers: { authorization: `Bearer ${VIEW_TOKEN}` },
    });
    assert.equal(bearer.status, 200);
    assert.match(bearer.headers.get("content-security-policy")!, /default-src 'none'/);
    assert.doesNotMatch(bearer.headers.get("content-security-policy")!, /script-src/);
    const html = await bearer.text();
    assert.doesNotMatch(html, /<script/i);
    assert.match(html, /&lt;script&gt;window\.pwned = 1&lt;\/script&gt;/);
    assert.match(html, /times in Asia\/Tokyo/);
    assert.match(html, /contract 1/);
    const redirect = await fetch(`${server.origin}/view?key=${VIEW_TOKEN}&workspace=acme/shop`, {
      redirect: "manual",
    });
    assert.equal(redirect.status, 303);
    assert.equal(redirect.headers.get("location"), "/view?workspace=acme%2Fshop");
    const cookie = redirect.headers.get("set-cookie")!;
    assert.match(cookie, /HttpOnly/);
    assert.match(cookie, /SameSite=Strict/);
    const unknown = await fetch(`${server.origin}/view/01ARZ3NDEKTSV4RRFFQ69G5FAV`, {
      headers: { authorization: `Bearer ${VIEW_TOKEN}` },
    });
    assert.equal(unknown.status, 404);
    assert.match(await unknown.text(), /No discussion has id/);
    const badWorkspace = await fetch(`${server.origin}/view?workspace=${"w".repeat(141)}`, {
      headers: { authorization: `Bearer ${VIEW_TOKEN}` },
    });
    assert.equal(badWorkspace.status, 400);
    assert.match(await badWorkspace.text(), /at most 140 characters/);
  } finally {
    await server.close();
  }
});

browserTest(
  "/view in Chromium: the key moves into a cookie, pages render, no script runs",
  async (browser) => {
    const { server, discussionId } = await seeded();
    try {
      const context = await browser.newContext({ viewport: { width: 900, height: 1000 } });
      const page = await context.newPage();
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(e.message));
      const requests: string[] = [];
      page.on("request", (r) => requests.push(r.url()));
      await page.goto(`${server.origin}/view?key=${VIEW_TOKEN}`);
      assert.equal(page.url(), `${server.origin}/view`, "the key is dropped from the address");
      const cookies = await context.cookies();
      assert.equal(cookies.length, 1);
      assert.equal(cookies[0].httpOnly, true);
      assert.equal(cookies[0].sameSite, "Strict");
      assert.equal(await page.locator("h1").textContent(), "Table · acme/shop");
      const text = String(await page.locator("main").textContent());
      assert.match(text, /Decisions awaiting a person \(1\)/);
      assert.match(text, /Retry card payments once/);
      assert.match(text, /waiting · Test the double-charge case → claude/);
      assert.match(text, /Naming <script>window\.pwned = 1<\/script>/, "titles shown as text");
      assert.match(String(await page.locator(".bar").textContent()), /contract 1 .* Asia\/Tokyo/);
      await page.screenshot({ path: await screenshotPath("table_view"), fullPage: true });

      await page.locator(`a[href^="/view/${discussionId}"]`).click();
      await page.locator(".msg").nth(2).waitFor();
      const kinds = await page.locator(".msg .kind").allTextContents();
      assert.deepEqual(kinds, ["proposal", "review", "question"]);
      const authors = await page.locator(".msg .via").allTextContents();
      assert.deepEqual(authors, ["via token", "via token", "via token"]);
      assert.match(String(await page.locator("#seq-2 pre").textContent()), /<script>window\.pwned/);
      assert.equal(await page.locator("main img").count(), 0, "stored HTML is never parsed");
      assert.equal(await page.evaluate(() => (window as { pwned?: number }).pwned), undefined);
      assert.equal(await page.locator("script").count(), 0);
      await page.screenshot({ path: await screenshotPath("table_discussion"), fullPage: true });
      assert.deepEqual(errors, []);
      assert.ok(requests.every((u) => u.startsWith(server.origin)), "no external asset");
      await context.close();
    } finally {
      await server.close();
    }
  },
);
