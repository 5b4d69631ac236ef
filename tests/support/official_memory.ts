/**
 * Starts the official knowledge-graph memory server from npm over stdio on Deno, for the
 * compatibility test and the benchmark. It is run, never copied into this repository.
 */

import { Client, StdioClientTransport } from "../../src/client/sdk_client.ts";
import { ROOT } from "./harness.ts";

/** The npm package and version we compare against. */
export const OFFICIAL_MEMORY_PACKAGE = "@modelcontextprotocol/server-memory@2026.8.31";

/** An SDK client connected to the official server keeping its graph in `file`. */
export async function connectOfficialMemory(file: string): Promise<InstanceType<typeof Client>> {
  const client = new Client({ name: "official-memory", version: "1.0.0" });
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: [
      "run",
      "--allow-read",
      "--allow-write",
      "--allow-env",
      "--no-prompt",
      // Pinned with the other test tools, never in the server's own deno.lock.
      "--lock=deno.test.lock",
      `npm:${OFFICIAL_MEMORY_PACKAGE}`,
    ],
    cwd: ROOT,
    env: { ...Deno.env.toObject(), NO_COLOR: "1", MEMORY_FILE_PATH: file },
    stderr: "ignore",
  });
  await client.connect(transport);
  return client;
}
