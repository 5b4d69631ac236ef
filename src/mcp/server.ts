/** Builds the MCP server with the toolsets a caller asked for. */

import { McpServer } from "./sdk.ts";
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
  return server;
}
