/** Builds the MCP server with the toolsets a caller asked for. */

import { McpServer, type ServerCapabilities } from "./sdk.ts";
import type { McpDeps, Toolset } from "./toolset.ts";

export type { McpDeps, Toolset } from "./toolset.ts";

/** The server's name and version, as clients see them. */
export const SERVER_INFO = { name: "handoff-mcp", version: "0.1.0" };

/** A new `McpServer` exposing `toolsets`, in the order given. */
export function createMcpServer(deps: McpDeps, toolsets: readonly Toolset[]): McpServer {
  const instructions = [
    "handoff-mcp keeps AI work durable across chats, sessions and AI clients; everything here is stored and shared by every client of this server.",
    ...toolsets.map((t) => t.instructions),
  ].join("\n\n");
  const server = new McpServer(SERVER_INFO, {
    instructions,
    capabilities: { logging: {} },
  });
  for (const toolset of toolsets) toolset.register(server, deps);
  // The SDK advertises list_changed as soon as a tool, prompt or resource is registered, but a
  // stateless server (a fresh one per request) can never send those notifications.
  // Only the kinds present are touched: advertising prompts without any would invite prompts/list.
  const present = (server.server as unknown as { getCapabilities(): ServerCapabilities })
    .getCapabilities();
  const lists = (["tools", "prompts", "resources"] as const).filter((kind) => present[kind]);
  server.server.registerCapabilities(
    Object.fromEntries(lists.map((kind) => [kind, { ...present[kind], listChanged: false }])),
  );
  return server;
}
