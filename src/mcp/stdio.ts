/** The same MCP server over stdio, for desktop clients that start a command. */

import process from "node:process";
import { createMcpServer, type McpDeps, type Toolset } from "./server.ts";
import { StdioServerTransport } from "./sdk.ts";

/** Serves MCP on stdin/stdout until the client closes stdin. Nothing else may write stdout. */
export async function serveStdio(deps: McpDeps, toolsets: readonly Toolset[]): Promise<void> {
  const server = createMcpServer(deps, toolsets);
  const closed = Promise.withResolvers<void>();
  server.server.onclose = () => closed.resolve();
  process.stdin.on("end", () => void server.close());
  await server.connect(new StdioServerTransport());
  await closed.promise;
}
