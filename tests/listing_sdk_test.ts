/**
 * The `tools/list` entries the server makes from its tool definitions (`src/tools/listing.ts`) are
 * what the SDK's own `McpServer` lists for the same definitions (its input schemas made lean by
 * `listedInput`, as every server of ours lists them): checked for every tool of every toolset,
 * against a plain SDK server the test makes and asks over an in-memory pair.
 */

import assert from "node:assert/strict";
import { loadConfig } from "../src/config.ts";
import { defaultCaller } from "../src/tools/caller.ts";
import { recordToolsets } from "../src/tools/registry.ts";
import { listedInput } from "../src/tools/schema.ts";
import { McpServer } from "../src/mcp/sdk.ts";
import { Client, InMemoryTransport } from "../src/client/sdk_client.ts";
import { loadToolsets } from "../src/toolsets.ts";
import { NoticeBus } from "../src/kit/notices.ts";
import { withKv } from "./support/kv.ts";

Deno.test("every tool's listing made from its definition is what the SDK lists for it", async () => {
  await withKv(async (kv) => {
    const config = loadConfig(new Map());
    const notices = new NoticeBus(config.notices);
    const deps = { kv, config, caller: defaultCaller(config), notices };
    const recorded = recordToolsets(loadToolsets(new Map()), deps);
    const sdk = new McpServer({ name: "sdk", version: "1" }, { capabilities: {} });
    for (const { name, config, handler } of recorded.tools.values()) {
      (sdk.registerTool as (...a: unknown[]) => unknown)(name, config, handler);
    }
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: "test", version: "1.0.0" });
    await Promise.all([sdk.connect(a), client.connect(b)]);
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name), [...recorded.tools.keys()]);
      assert.ok(tools.length > 20, `only ${tools.length} tools listed`);
      for (const tool of tools) {
        const ours = recorded.tools.get(tool.name)!.listed();
        // As sent: an in-memory pair passes objects on, undefined keys and all.
        const expected = sent({ ...tool, inputSchema: listedInput(tool.inputSchema) });
        assert.deepEqual(sent(ours), expected, tool.name);
      }
    } finally {
      await client.close();
      await sdk.close();
    }
  });
});

/** `value` as JSON carries it (no undefined keys). */
function sent(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}
