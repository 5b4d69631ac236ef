/**
 * What connector directories and hosts show of the server besides the model's view: every tool
 * has a title, all four behaviour hints said outright (never open-world: everything stays in
 * this server's KV), and an icon; the server and the MCP Apps views carry icons too. Every icon
 * is inline (a data URI), so nothing is fetched from elsewhere. Asked in both eras: 2025 lists
 * come from the SDK's own server, 2026 ones from the listing built once per toolset choice.
 */

import assert from "node:assert/strict";
import { ClientV2, StreamableHTTPClientTransportV2 } from "../src/client/sdk_client_v2.ts";
import { connect, startServer } from "./support/harness.ts";

interface Iconic {
  icons?: { src: string; mimeType?: string }[];
}

/** Every icon is an inline SVG that decodes to a whole `<svg>` element. */
function assertInlineIcons(what: string, item: Iconic | undefined): void {
  assert.ok(item?.icons && item.icons.length > 0, `${what} has no icon`);
  for (const icon of item.icons) {
    assert.equal(icon.mimeType, "image/svg+xml", what);
    const base64 = icon.src.match(/^data:image\/svg\+xml;base64,(.+)$/)?.[1];
    assert.ok(base64, `${what}: icon is not an inline SVG data URI: ${icon.src.slice(0, 60)}`);
    const svg = atob(base64);
    assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^>]*>[\s\S]*<\/svg>$/, what);
  }
}

interface ListedTool extends Iconic {
  name: string;
  title?: string;
  annotations?: Record<string, unknown>;
}

function assertToolMetadata(tools: ListedTool[], era: string): void {
  assert.ok(tools.length >= 36, `${era}: every toolset is served`);
  for (const tool of tools) {
    const what = `${era} ${tool.name}`;
    assert.ok(tool.title && tool.title.trim() !== "", `${what} has no title`);
    const hints = tool.annotations ?? {};
    for (const hint of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"]) {
      assert.equal(typeof hints[hint], "boolean", `${what}: ${hint} is not said outright`);
    }
    assert.equal(hints.openWorldHint, false, what);
    if (hints.readOnlyHint) assert.equal(hints.destructiveHint, false, `${what} reads only`);
    assertInlineIcons(what, tool);
  }
  // Each toolset has an icon of its own.
  const iconOf = (name: string) => tools.find((t) => t.name === name)?.icons?.[0]?.src;
  const distinct = new Set(
    ["get_state", "handoff_save", "create_discussion", "sequentialthinking"].map(iconOf),
  );
  assert.equal(distinct.size, 4, `${era}: one icon per toolset`);
}

Deno.test("every tool has a title, explicit hints and an inline icon; so do the server and views (2025)", async () => {
  const server = await startServer();
  try {
    const client = await connect(server, "http");
    assertInlineIcons("serverInfo", client.getServerVersion() as Iconic);
    assertToolMetadata((await client.listTools()).tools as ListedTool[], "2025");
    const views = (await client.listResources()).resources.filter((r) => r.uri.startsWith("ui://"));
    assert.ok(views.length >= 2, "the MCP Apps views are listed");
    for (const view of views) assertInlineIcons(view.uri, view as Iconic);
    await client.close();
  } finally {
    await server.close();
  }
});

Deno.test("every tool has a title, explicit hints and an inline icon (2026-07-28)", async () => {
  const server = await startServer();
  try {
    const client = new ClientV2({ name: "metadata", version: "1.0.0" }, {
      versionNegotiation: { mode: { pin: "2026-07-28" } },
    });
    await client.connect(
      new StreamableHTTPClientTransportV2(new URL(`${server.origin}/${server.token}/mcp`)),
    );
    assertInlineIcons("serverInfo", client.getServerVersion() as Iconic);
    assertToolMetadata((await client.listTools()).tools as ListedTool[], "2026");
    await client.close();
  } finally {
    await server.close();
  }
});
