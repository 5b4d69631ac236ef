/**
 * Starts the standard sequential-thinking MCP server from npm over stdio, for the
 * compatibility test and the benchmark. It is run, never copied into this repository.
 */

import { Client, StdioClientTransport } from "../../src/client/sdk_client.ts";
import { ROOT } from "./harness.ts";

/** The npm package and version we compare against. */
export const STANDARD_THINKING_PACKAGE =
  "@modelcontextprotocol/server-sequential-thinking@2026.8.31";

/** How to run the standard server: on Deno (always available here) or on Node through npx. */
export type StandardRuntime = "deno" | "node";

/** True when `npx` can be started, so the standard server can run on Node as users run it. */
export async function nodeAvailable(): Promise<boolean> {
  try {
    const out = await new Deno.Command("npx", {
      args: ["--version"],
      stdout: "null",
      stderr: "null",
    })
      .output();
    return out.success;
  } catch {
    return false;
  }
}

/** An SDK client connected to the standard server in a child process over stdio. */
export async function connectStandardThinking(
  runtime: StandardRuntime = "deno",
  env: Record<string, string> = {},
): Promise<InstanceType<typeof Client>> {
  const client = new Client({ name: `standard-${runtime}`, version: "1.0.0" });
  const transport = new StdioClientTransport(
    runtime === "deno"
      ? {
        command: Deno.execPath(),
        args: [
          "run",
          "--allow-read",
          "--allow-env",
          "--no-prompt",
          // Pinned with the other test tools, never in the server's own deno.lock.
          "--lock=deno.test.lock",
          `npm:${STANDARD_THINKING_PACKAGE}`,
        ],
        cwd: ROOT,
        env: { ...Deno.env.toObject(), NO_COLOR: "1", ...env },
        stderr: "ignore",
      }
      : {
        command: "npx",
        args: ["-y", STANDARD_THINKING_PACKAGE],
        cwd: ROOT,
        env: {
          ...Deno.env.toObject(),
          NO_COLOR: "1",
          npm_config_update_notifier: "false",
          ...env,
        },
        stderr: "ignore",
      },
  );
  await client.connect(transport);
  return client;
}
