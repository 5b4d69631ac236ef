/**
 * The MCP Apps view of handoff_list in headless Chromium: a minimal host page embeds the view's
 * HTML (read from the real server as a ui:// resource) in a sandboxed iframe, answers its
 * ui/initialize, feeds it a real handoff_list result, and proxies its tools/call requests to a
 * real MCP client. Screenshot: tests/screenshots/handoff_list.png.
 */

import assert from "node:assert/strict";
import { browserTest, screenshotPath } from "./support/browser.ts";
import { connect, startServer } from "./support/harness.ts";

const HOST_PAGE = `<!doctype html>
<html><body style="margin:0;padding:16px;background:#e7e5e4;font-family:sans-serif">
<iframe id="app" sandbox="allow-scripts" style="width:688px;height:200px;border:0;background:#fff;border-radius:12px"></iframe>
<script>
  const frame = document.getElementById("app");
  window.hostLog = [];
  window.startView = (html, result) => {
    window.TOOL_RESULT = result;
    frame.srcdoc = html;
  };
  window.addEventListener("message", async (event) => {
    if (event.source !== frame.contentWindow) return;
    const m = event.data;
    window.hostLog.push(m.method ?? "response");
    const reply = (result) =>
      frame.contentWindow.postMessage({ jsonrpc: "2.0", id: m.id, result }, "*");
    if (m.method === "ui/initialize") {
      reply({
        protocolVersion: "2026-01-26",
        hostInfo: { name: "test-host", version: "1.0.0" },
        hostCapabilities: { serverTools: {} },
        hostContext: { theme: "light", displayMode: "inline" },
      });
    } else if (m.method === "ui/notifications/initialized") {
      const post = (method, params) =>
        frame.contentWindow.postMessage({ jsonrpc: "2.0", method, params }, "*");
      post("ui/notifications/tool-input", { arguments: { limit: 2 } });
      post("ui/notifications/tool-result", window.TOOL_RESULT);
    } else if (m.method === "tools/call") {
      reply(await window.mcpCall(m.params.name, m.params.arguments));
    } else if (m.method === "ui/notifications/size-changed") {
      frame.style.height = m.params.height + "px";
    }
  });
</script></body></html>`;

browserTest("handoff_list view: cards, expand, load messages, delete, more", async (browser) => {
  const server = await startServer();
  const client = await connect(server, "http");
  try {
    await client.callTool({
      name: "handoff_save",
      arguments: {
        key: "auth-refactor",
        title: "Auth refactor: session tokens",
        summary: "Moved session tokens to HttpOnly cookies; CSRF check still to do.",
        conversation: "## User\nHow do we store session tokens?\n\n## Assistant\n" +
          "Use HttpOnly cookies.\n```ts\nsetCookie(res, token)\n```\n",
        from_ai: "Cursor",
        status: "completed",
        tags: ["auth"],
      },
    });
    await client.callTool({
      name: "handoff_save",
      arguments: {
        key: "kv-design",
        title: "Chunked KV store for handoffs",
        summary:
          "Conversations up to 1 MiB stored as 60 KB chunks under a manifest swapped in last.",
        conversation: "## User\nHow big can a KV value be?\n\n## Assistant\n64 KiB, so we chunk. " +
          '<img src=x onerror="window.pwned=1">\n\n**User:** and atomics?\n\n' +
          "**Assistant:** 800 KiB, so large saves are staged first.\n",
        from_ai: "Claude Desktop",
        from_project: "handoff-mcp",
        next_action: "Write the eviction test",
        tags: ["deno", "kv", "design"],
      },
    });
    await client.callTool({
      name: "handoff_add_comment",
      arguments: { key: "kv-design", content: "Benchmark search too", author: "Claude Code" },
    });
    await client.callTool({
      name: "handoff_save",
      arguments: {
        key: "release-notes",
        summary: "Draft release notes for v0.2 waiting for review",
        // The first answer was cut off inside a code block: the messages after it still count.
        conversation:
          "## User\nDraft the notes\n\n## Assistant\nHere they are:\n```md\n# v0.2\n\n" +
          "## User\nThat got cut off; again please\n\n## Assistant\nHere they are…\n",
        from_ai: "Codex",
        status: "pending",
      },
    });
    const listResult = await client.callTool({ name: "handoff_list", arguments: { limit: 2 } });
    const resource = await client.readResource({ uri: "ui://handoff/list.html" });
    const viewHtml = String((resource.contents[0] as { text?: string }).text);

    const page = await browser.newPage({ viewport: { width: 720, height: 900 } });
    const requests: string[] = [];
    page.on("request", (r) => requests.push(r.url()));
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    const calls: string[] = [];
    await page.exposeFunction("mcpCall", async (name: string, args: Record<string, unknown>) => {
      calls.push(name);
      return await client.callTool({ name, arguments: args });
    });
    await page.setContent(HOST_PAGE);
    await page.evaluate(([html, result]) => {
      (globalThis as unknown as { startView(h: unknown, r: unknown): void }).startView(
        html,
        result,
      );
    }, [viewHtml, listResult] as const);

    const app = page.frameLocator("#app");
    const cards = app.locator(".card");
    await cards.nth(1).waitFor();
    assert.equal(await cards.count(), 2, "the first page of the real result");
    assert.equal(
      await cards.nth(0).locator(".title").textContent(),
      "Draft release notes for v0.2 waiting for review",
    );
    assert.equal(await cards.nth(0).locator(".status").textContent(), "pending");
    assert.match(
      String(await cards.nth(1).locator(".meta").textContent()),
      /^Claude Desktop · .* · 4 messages · .* · 1 comment$/,
    );

    await app.locator("#more").click();
    await cards.nth(2).waitFor();
    assert.equal(await cards.count(), 3, "Load more fetched the next page through tools/call");
    assert.equal(await app.locator("#more").isHidden(), true);

    const kv = app.locator('.card[data-key="kv-design"]');
    await kv.locator(".head").click();
    assert.equal(await kv.locator(".head").getAttribute("aria-expanded"), "true");
    assert.match(String(await kv.locator(".summary").textContent()), /60 KB chunks/);
    await kv.locator("button.load").click();
    await kv.locator(".msg").nth(3).waitFor();
    const roles = await kv.locator(".msg .who").allTextContents();
    assert.deepEqual(roles, ["user", "assistant", "user", "assistant"]);
    assert.match(String(await kv.locator(".msg .text").nth(1).textContent()), /<img src=x onerror/);
    assert.equal(await kv.locator("img").count(), 0, "stored text is never parsed as HTML");
    const pwned = await page.frames()[1].evaluate(() => (window as { pwned?: number }).pwned);
    assert.equal(pwned, undefined);

    await page.waitForTimeout(150); // let the size-changed notification resize the frame
    await page.screenshot({ path: await screenshotPath("handoff_list"), fullPage: true });

    const notes = app.locator('.card[data-key="release-notes"]');
    assert.match(String(await notes.locator(".meta").textContent()), / · 4 messages · /);
    await notes.locator(".head").click();
    await notes.locator("button.load").click();
    await notes.locator(".msg").nth(3).waitFor();
    assert.deepEqual(await notes.locator(".msg .who").allTextContents(), [
      "user",
      "assistant",
      "user",
      "assistant",
    ]);
    await notes.locator(".head").click();

    const auth = app.locator('.card[data-key="auth-refactor"]');
    await auth.locator(".head").click();
    await auth.locator("button.delete").click();
    assert.equal(await auth.locator("button.delete").textContent(), "Click again to delete");
    await auth.locator("button.delete").click();
    await auth.waitFor({ state: "detached" });
    assert.equal(await cards.count(), 2);
    const gone = await client.callTool({
      name: "handoff_load",
      arguments: { key: "auth-refactor" },
    });
    assert.equal(gone.isError, true, "deleted on the server, not just hidden");

    assert.deepEqual(calls, ["handoff_list", "handoff_load", "handoff_load", "handoff_clear"]);
    const log = await page.evaluate(() => (window as unknown as { hostLog: string[] }).hostLog);
    assert.ok(log.includes("ui/initialize") && log.includes("ui/notifications/initialized"));
    assert.ok(log.includes("ui/notifications/size-changed"));
    assert.deepEqual(
      requests.filter((u) => !u.startsWith("about:") && !u.startsWith("data:")),
      [],
      "the view makes no network requests",
    );
    assert.deepEqual(errors, [], "no script errors in the view");
    await page.close();
  } finally {
    await client.close();
    await server.close();
  }
});
