/**
 * The one MCP test helper: the real MCP server on a fresh in-memory KV, with SDK clients
 * connected over `InMemoryTransport`, and tool calls read into text, error flag and data.
 */

import { type Config, loadConfig } from "../../src/config.ts";
import { Client, InMemoryTransport } from "../../src/client/sdk_client.ts";
import { defaultCaller } from "../../src/tools/caller.ts";
import { createMcpServer } from "../../src/mcp/server.ts";
import { loadToolsets } from "../../src/toolsets.ts";

/** An SDK client. */
export type McpClient = InstanceType<typeof Client>;

/** What `withMcpClient` builds the server from. */
export interface McpClientOptions {
  /** The `TOOLSETS` setting (a comma list); every toolset when omitted. */
  toolsets?: string;
  /** More environment variables, e.g. a toolset's limits. */
  env?: Record<string, string>;
}

/** What a test gets: a connected client, more sessions on the same KV, the KV and config. */
export interface McpTestContext {
  client: McpClient;
  /** Another session: a new server on the same KV, as a second chat or client would get. */
  connect(): Promise<McpClient>;
  kv: Deno.Kv;
  config: Config;
}

/** Runs `fn` with a client connected in memory to the server on a fresh KV; closes all after. */
export async function withMcpClient(
  options: McpClientOptions,
  fn: (ctx: McpTestContext) => Promise<void>,
): Promise<void> {
  const env = new Map(Object.entries({ KV_PATH: ":memory:", ...options.env }));
  if (options.toolsets !== undefined) env.set("TOOLSETS", options.toolsets);
  const config = loadConfig(env);
  const toolsets = loadToolsets(env);
  const kv = await Deno.openKv(":memory:");
  const open: { close(): Promise<void> }[] = [];
  const connect = async () => {
    const server = createMcpServer({ kv, config, caller: defaultCaller(config) }, toolsets);
    const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: "mcp-test", version: "1.0.0" });
    await server.connect(serverSide);
    await client.connect(clientSide);
    // Listing makes the SDK client check every structured result against the tool's output
    // schema (the server serves tools without re-checking its own output on each call).
    await client.listTools();
    open.push(client, server);
    return client;
  };
  try {
    await fn({ client: await connect(), connect, kv, config });
  } finally {
    for (const item of open) await item.close();
    kv.close();
  }
}

/** The text, error flag and structured content of one tool call. */
export interface CallOutcome {
  text: string;
  isError: boolean;
  /** The result's `structuredContent`; `{}` when it has none. */
  structured: Record<string, unknown>;
}

/** Calls a tool and returns its text blocks joined, its error flag and its structured content. */
export async function call(
  client: McpClient,
  name: string,
  args: Record<string, unknown> = {},
): Promise<CallOutcome> {
  const result = await client.callTool({ name, arguments: args });
  const content = result.content as { type: string; text?: string }[];
  return {
    text: content.filter((c) => c.type === "text").map((c) => c.text).join("\n"),
    isError: result.isError === true,
    structured: (result.structuredContent ?? {}) as Record<string, unknown>,
  };
}
