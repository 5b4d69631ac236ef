/**
 * The thinking view in headless Chromium: a minimal MCP Apps host page embeds the view's HTML
 * in a sandboxed iframe, feeds it real tool input and results from our server, and answers
 * its `tools/call` requests through a real MCP client.
 */

import assert from "node:assert/strict";
import { THINKING_VIEW_URI } from "../src/thinking/tools.ts";
import { browserTest, type Page, screenshotPath } from "./support/browser.ts";
import { type McpClient, withMcpClient } from "./support/mcp.ts";

interface Feed {
  input: Record<string, unknown>;
  result: Record<string, unknown>;
}

/** A sequence with a branch and a revision; returns every call's input and result. */
async function writeSequence(client: McpClient): Promise<Feed[]> {
  const steps: Record<string, unknown>[] = [
    {
      thought:
        "The dashboard takes 4 s to load. Before guessing, list what happens on one request: auth, three API calls, and rendering a 2,000-row table.",
      thoughtNumber: 1,
      totalThoughts: 4,
      nextThoughtNeeded: true,
    },
    {
      thought:
        "The trace shows the /orders call alone takes 3.1 s; the others finish under 200 ms. The table render is 150 ms.",
      thoughtNumber: 2,
      totalThoughts: 4,
      nextThoughtNeeded: true,
    },
    {
      thought:
        "Alternative: cache /orders per customer for 60 s. Cheap to try, but stale totals after a new order would confuse support staff.",
      thoughtNumber: 3,
      totalThoughts: 4,
      nextThoughtNeeded: true,
      branchFromThought: 2,
      branchId: "cache",
    },
    {
      thought:
        "Revising thought 1: auth is not free either; the token check hits the database on every call (120 ms).",
      thoughtNumber: 3,
      totalThoughts: 5,
      nextThoughtNeeded: true,
      isRevision: true,
      revisesThought: 1,
    },
    {
      thought: "/orders の遅さはインデックス不足。customer_id に索引を張れば 3.1 s → 40 ms。",
      thoughtNumber: 4,
      totalThoughts: 5,
      nextThoughtNeeded: true,
    },
    {
      thought:
        "Answer: add the customer_id index first (fixes 3 s), then cache the token check. Skip the response cache: the index makes it unnecessary.",
      thoughtNumber: 5,
      totalThoughts: 5,
      nextThoughtNeeded: false,
    },
  ];
  const feeds: Feed[] = [];
  let sequenceId: unknown;
  for (const step of steps) {
    const input = sequenceId === undefined ? step : { ...step, sequenceId };
    const result = await client.callTool({ name: "sequentialthinking", arguments: input });
    assert.equal(result.isError, undefined, JSON.stringify(result));
    sequenceId ??= (result.structuredContent as { sequenceId: string }).sequenceId;
    feeds.push({ input, result: result as Record<string, unknown> });
  }
  return feeds;
}

function hostPage(viewHtml: string, feed: Feed): string {
  const data = JSON.stringify(feed).replaceAll("<", "\\u003c");
  const srcdoc = viewHtml.replaceAll("&", "&amp;").replaceAll('"', "&quot;");
  return `<!doctype html><html><head><meta charset="utf-8"><style>
  body { margin: 0; padding: 16px; background: #e9ebef; font-family: sans-serif; }
  iframe { width: 720px; height: 200px; border: 0; display: block; background: white; }
</style></head><body>
<iframe id="view" sandbox="allow-scripts" srcdoc="${srcdoc}"></iframe>
<script>
  const feed = ${data};
  window.hostLog = [];
  const frame = document.getElementById("view");
  const send = (message) => frame.contentWindow.postMessage(message, "*");
  window.addEventListener("message", async (event) => {
    if (event.source !== frame.contentWindow) return;
    const msg = event.data;
    window.hostLog.push(msg.method || "response");
    if (msg.method === "ui/initialize") {
      send({ jsonrpc: "2.0", id: msg.id, result: {
        protocolVersion: "2026-01-26",
        hostInfo: { name: "test-host", version: "1.0.0" },
        hostCapabilities: { serverTools: {} },
        hostContext: { theme: "light", displayMode: "inline" },
      } });
    } else if (msg.method === "ui/notifications/initialized") {
      send({ jsonrpc: "2.0", method: "ui/notifications/tool-input", params: { arguments: feed.input } });
      send({ jsonrpc: "2.0", method: "ui/notifications/tool-result", params: feed.result });
    } else if (msg.method === "tools/call") {
      const result = await window.hostCallTool(msg.params.name, msg.params.arguments);
      send({ jsonrpc: "2.0", id: msg.id, result });
    } else if (msg.method === "ui/notifications/size-changed") {
      frame.style.height = msg.params.height + "px";
    }
  });
</script></body></html>`;
}

async function openView(
  page: Page,
  client: McpClient,
  viewHtml: string,
  feed: Feed,
): Promise<string[]> {
  const requests: string[] = [];
  page.on("request", (req) => requests.push(req.url()));
  await page.exposeFunction(
    "hostCallTool",
    (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args }),
  );
  await page.setContent(hostPage(viewHtml, feed));
  return requests;
}

async function viewHtmlOf(client: McpClient): Promise<string> {
  const read = await client.readResource({ uri: THINKING_VIEW_URI });
  return (read.contents[0] as { text: string }).text;
}

browserTest("thinking view shows the current thought as a card", async (browser) => {
  await withMcpClient({ toolsets: "thinking" }, async ({ client }) => {
    const feeds = await writeSequence(client);
    const page = await browser.newPage({ viewport: { width: 760, height: 600 } });
    const requests = await openView(page, client, await viewHtmlOf(client), feeds[3]);
    const view = page.frameLocator("#view");
    const card = view.locator("#current");
    await card.waitFor();
    await view.locator("#current .meta", { hasText: "Sequence seq_" }).waitFor();
    const text = await card.innerText();
    assert.match(text, /Thought 3\/5/);
    assert.match(text, /revises 1 \(#1\)/);
    assert.match(text, /auth is not free either/);
    assert.match(text, /4 thoughts stored · branches: cache/);
    assert.equal(await view.locator("#process").count(), 0, "no process view mid-sequence");
    assert.deepEqual(
      requests.filter((url) => /^(https?|wss?):/.test(url)),
      [],
      "the view loads nothing from the network",
    );
    await page.waitForTimeout(100);
    await page.locator("#view").screenshot({ path: await screenshotPath("thinking_card") });
  });
});

browserTest(
  "thinking view shows the whole process with branches and revisions at the end",
  async (browser) => {
    await withMcpClient({ toolsets: "thinking" }, async ({ client }) => {
      const feeds = await writeSequence(client);
      const page = await browser.newPage({ viewport: { width: 760, height: 900 } });
      await openView(page, client, await viewHtmlOf(client), feeds.at(-1)!);
      const view = page.frameLocator("#view");
      await view.locator("#process .node").first().waitFor();
      assert.equal(await view.locator("#process .node").count(), 6);
      const branch = view.locator('#process .branch[data-branch="cache"]');
      assert.match(await branch.innerText(), /cache — from thought 2 on main \(#2\), 1 thought/);
      assert.match(await branch.innerText(), /cache \/orders per customer/);
      // The branch sits right after its fork point, thought #2.
      const order = await view.locator("#process .lane > *").evaluateAll((els) =>
        els.map((el) => el.getAttribute("data-index") ?? `branch:${el.getAttribute("data-branch")}`)
      );
      assert.deepEqual(order, ["1", "2", "branch:cache", "4", "5", "6"]);
      const revised = view.locator('#process .node[data-index="1"]');
      assert.match(await revised.getAttribute("class") ?? "", /revised/);
      assert.match(await revised.innerText(), /revised by #4/);
      assert.match(
        await view.locator("#process .summary").innerText(),
        /complete · 6 thoughts · 1 branch · 1 revision/,
      );
      assert.match(await view.locator("#process").innerText(), /インデックス不足/);
      const log = await page.evaluate(() =>
        (globalThis as unknown as { hostLog: string[] }).hostLog
      );
      assert.ok(log.includes("tools/call"), "the view asked the host for get_thought_history");
      await page.waitForTimeout(150);
      await page.locator("#view").screenshot({ path: await screenshotPath("thinking_process") });
    });
  },
);

browserTest(
  "thinking view renders a get_thought_history result and a named error",
  async (browser) => {
    await withMcpClient({ toolsets: "thinking" }, async ({ client }) => {
      const feeds = await writeSequence(client);
      const sequenceId = (feeds[0].result.structuredContent as { sequenceId: string }).sequenceId;
      const input = { sequenceId };
      const history = await client.callTool({ name: "get_thought_history", arguments: input });
      const html = await viewHtmlOf(client);
      const page = await browser.newPage({ viewport: { width: 760, height: 900 } });
      await openView(page, client, html, { input, result: history as Record<string, unknown> });
      const view = page.frameLocator("#view");
      await view.locator("#process .node").first().waitFor();
      assert.equal(await view.locator("#process .node").count(), 6);
      assert.equal(await view.locator("#current").count(), 0);

      const bad = { ...feeds[1].input, isRevision: true, revisesThought: 42 };
      const error = await client.callTool({ name: "sequentialthinking", arguments: bad });
      assert.equal(error.isError, true);
      const errorPage = await browser.newPage({ viewport: { width: 760, height: 400 } });
      await openView(errorPage, client, html, {
        input: bad,
        result: error as Record<string, unknown>,
      });
      const errorView = errorPage.frameLocator("#view");
      await errorView.locator(".card.error").waitFor();
      assert.equal(
        await errorView.locator(".card.error .code").innerText(),
        "REVISION_TARGET_NOT_FOUND",
      );
    });
  },
);

browserTest(
  "thinking view joins a thought that the result budget cut across pages",
  async (browser) => {
    await withMcpClient(
      { toolsets: "thinking", env: { RESULT_MAX_TOKENS: "1000" } },
      async ({ client }) => {
        const long = `${"長い思考の途中。".repeat(300)}END`; // 2,400 tokens: more than a page
        const feeds: Feed[] = [];
        let sequenceId: string | undefined;
        for (const [i, thought] of ["First, a short one.", long, "Done."].entries()) {
          const input = {
            thought,
            thoughtNumber: i + 1,
            totalThoughts: 3,
            nextThoughtNeeded: i < 2,
            ...(sequenceId ? { sequenceId } : {}),
          };
          const result = await client.callTool({ name: "sequentialthinking", arguments: input });
          sequenceId = (result.structuredContent as { sequenceId: string }).sequenceId;
          feeds.push({ input, result: result as Record<string, unknown> });
        }
        const page = await browser.newPage({ viewport: { width: 760, height: 900 } });
        await openView(page, client, await viewHtmlOf(client), feeds.at(-1)!);
        const view = page.frameLocator("#view");
        await view.locator("#process .node").first().waitFor();
        assert.equal(await view.locator("#process .node").count(), 3);
        const node = await view.locator('#process .node[data-index="2"]').innerText();
        assert.ok(node.includes(long), "the long thought is shown whole, once");
      },
    );
  },
);
