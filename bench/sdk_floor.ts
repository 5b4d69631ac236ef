/**
 * The SDK's own floor for the `eras` group: the minimal `createMcpHandler` server, one trivial
 * tool registered per request, on `Deno.serve`, as the SDK's documentation shows it. Run as its
 * own process by `bench/eras.ts`; prints `listening on <origin>` and serves `/<AUTH_TOKEN>/mcp`.
 *
 * With `FLOOR_KV_PATH` set, its tool also lists one page under an empty KV prefix on that file,
 * as `list_projects` does on an empty server: a second yardstick (a detail, not a goal) that
 * tells how much of the gap to the floor is the one KV read every such tool makes.
 */

import { createMcpHandler, McpServer } from "../src/mcp/sdk.ts";
import { z } from "zod";
import { serveHandler } from "./serve_handler.ts";

const path = `/${Deno.env.get("AUTH_TOKEN")}/mcp`;
const input = z.object({});
const kvPath = Deno.env.get("FLOOR_KV_PATH");
const kv = kvPath ? await Deno.openKv(kvPath) : undefined;

/** What the tool does: nothing, or one empty page read from KV. */
async function work(): Promise<void> {
  if (!kv) return;
  for await (const _ of kv.list({ prefix: ["projects"] }, { limit: 51 }));
}

const handler = createMcpHandler(() => {
  const server = new McpServer({ name: "floor", version: "1" });
  server.registerTool("noop", { description: "Does nothing.", inputSchema: input }, async () => {
    await work();
    return { content: [{ type: "text", text: "ok" }] };
  });
  return server;
});

serveHandler(path, handler);
