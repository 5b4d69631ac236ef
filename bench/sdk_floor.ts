/**
 * The SDK's own floor for the `eras` group: the minimal `createMcpHandler` server, one trivial
 * tool registered per request, on `Deno.serve`, as the SDK's documentation shows it. Run as its
 * own process by `bench/eras.ts`; prints `listening on <origin>` and serves `/<AUTH_TOKEN>/mcp`.
 */

import { createMcpHandler, McpServer } from "../src/mcp/sdk.ts";
import { z } from "zod";
import { serveHandler } from "./serve_handler.ts";

const path = `/${Deno.env.get("AUTH_TOKEN")}/mcp`;
const input = z.object({});

const handler = createMcpHandler(() => {
  const server = new McpServer({ name: "floor", version: "1" });
  server.registerTool("noop", { description: "Does nothing.", inputSchema: input }, () => ({
    content: [{ type: "text", text: "ok" }],
  }));
  return server;
});

serveHandler(path, handler);
