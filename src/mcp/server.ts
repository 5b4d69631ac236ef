/** Builds the MCP server with the toolsets a caller asked for. */

import type { Config, ToolsetName } from "../config.ts";
import { FOCUS_INSTRUCTIONS, registerFocusTools } from "./focus.ts";
import { HANDOFF_INSTRUCTIONS, registerHandoffTools } from "./handoff.ts";
import { McpServer } from "./sdk.ts";
import { registerThinkingTools, THINKING_INSTRUCTIONS } from "./thinking.ts";

/** What every toolset may need. KV is opened once per process and passed in. */
export interface McpDeps {
  kv: Deno.Kv;
  config: Config;
}

/** The server's name and version, as clients see them. */
export const SERVER_INFO = { name: "handoff-mcp", version: "0.1.0" };

interface Toolset {
  instructions: string;
  register(server: McpServer, deps: McpDeps): void;
}

const TOOLSETS: Record<ToolsetName, Toolset> = {
  focus: { instructions: FOCUS_INSTRUCTIONS, register: registerFocusTools },
  handoff: { instructions: HANDOFF_INSTRUCTIONS, register: registerHandoffTools },
  thinking: { instructions: THINKING_INSTRUCTIONS, register: registerThinkingTools },
};

/** A new `McpServer` exposing `toolsets` (all configured ones by default). */
export function createMcpServer(
  deps: McpDeps,
  toolsets: readonly ToolsetName[] = deps.config.toolsets,
): McpServer {
  const instructions = [
    "handoff-mcp keeps AI work durable across chats, sessions and AI clients; everything here is stored and shared by every client of this server.",
    ...toolsets.map((name) => TOOLSETS[name].instructions),
  ].join("\n\n");
  const server = new McpServer(SERVER_INFO, {
    instructions,
    capabilities: { logging: {} },
  });
  for (const name of toolsets) TOOLSETS[name].register(server, deps);
  return server;
}
