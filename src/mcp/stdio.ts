/** The same MCP server over stdio, for desktop clients that start a command. */

import process from "node:process";
import type { Config } from "../config.ts";
import { type Caller, clientNameProblem } from "../kit/caller.ts";
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

/**
 * The caller of a stdio server: the machine's own user, named by `--client-name <name>` (or
 * `--client-name=<name>`), else `CLIENT_NAME`, else `DEFAULT_CLIENT_NAME`; always via `local`.
 * Throws naming the flag when its value is missing or not a valid client name.
 */
export function stdioCaller(config: Config, args: readonly string[]): Caller {
  let flag: string | undefined;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--client-name") {
      flag = args[i + 1];
      if (flag === undefined || flag.startsWith("--")) {
        throw new Error("--client-name needs a value, e.g. --client-name codex");
      }
    } else if (args[i].startsWith("--client-name=")) {
      flag = args[i].slice("--client-name=".length);
    }
  }
  if (flag !== undefined) {
    const problem = clientNameProblem(flag, "--client-name");
    if (problem) throw new Error(problem);
  }
  return { name: flag ?? config.clientName ?? config.defaultClientName, via: "local" };
}
