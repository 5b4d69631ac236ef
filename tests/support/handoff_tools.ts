/** Fixtures for the handoff tools' tests: a client connected in memory, and tool calls. */

import { type Config, loadConfig } from "../../src/config.ts";
import { Client, InMemoryTransport } from "../../src/mcp/sdk_client.ts";
import { createMcpServer } from "../../src/mcp/server.ts";
import { defaultCaller } from "../../src/mcp/caller.ts";
import { loadToolsets } from "../../src/toolsets.ts";

/** An SDK client. */
export type McpClient = InstanceType<typeof Client>;

/** What a test gets: a connected client, its KV and configuration. */
export interface Ctx {
  client: McpClient;
  kv: Deno.Kv;
  config: Config;
}

/** Runs `fn` with a client connected in memory to a handoff server on a fresh KV. */
export async function withClient(
  env: Record<string, string>,
  fn: (ctx: Ctx) => Promise<void>,
): Promise<void> {
  const vars = new Map(Object.entries({ KV_PATH: ":memory:", ...env }));
  const config = loadConfig(vars);
  const kv = await Deno.openKv(":memory:");
  const server = createMcpServer(
    { kv, config, caller: defaultCaller(config) },
    loadToolsets(new Map([...vars, ["TOOLSETS", "handoff"]])),
  );
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "handoff-test", version: "1.0.0" });
  try {
    await server.connect(serverSide);
    await client.connect(clientSide);
    await fn({ client, kv, config });
  } finally {
    await client.close();
    await server.close();
    kv.close();
  }
}

/** Calls a tool: its text, whether it is an error, and its structured content. */
export async function call(client: McpClient, name: string, args: Record<string, unknown> = {}) {
  const result = await client.callTool({ name, arguments: args });
  const content = result.content as { type: string; text?: string }[];
  return {
    text: content.map((c) => c.text ?? "").join("\n"),
    isError: result.isError === true,
    structured: result.structuredContent as Record<string, unknown> | undefined,
  };
}

/** A valid handoff_save argument. */
export const SAVE = {
  key: "design",
  summary: "We designed the chunked store",
  conversation: "## User\nhow?\n\n## Assistant\nchunks under a manifest\n",
  from_ai: "Claude Desktop",
  tags: ["kv"],
};
