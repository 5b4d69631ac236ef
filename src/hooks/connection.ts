/**
 * How a hook reaches the store: through the MCP tools, always, so a brief shows exactly what the
 * tools show and a save goes through the one write path. Locally the server runs in this process
 * on the same KV file as `deno task stdio` (caller `via: local`); with `HANDOFF_URL` it is the
 * remote server, over Streamable HTTP with the SDK's client.
 */

import { loadConfig } from "../config.ts";
import { unfinishedImport } from "../backup/marker.ts";
import { openKv } from "../kit/open_kv.ts";
import { clientNameFlag, stdioCaller } from "../tools/caller.ts";
import { createMcpServer } from "../mcp/server.ts";
import {
  ClientV2 as Client,
  InMemoryTransportV2 as InMemoryTransport,
  StreamableHTTPClientTransportV2 as StreamableHTTPClientTransport,
} from "../client/sdk_client_v2.ts";
import { loadToolsets, prepareToolsets } from "../toolsets.ts";
import type { EnvSource } from "../kit/env.ts";

/** A tool call's outcome. */
export interface ToolOutcome {
  text: string;
  isError: boolean;
  structured: Record<string, unknown>;
}

/** A connection to the store's tools. */
export interface HookConnection {
  /** Where it goes, without secrets, for messages. */
  where: string;
  /** The tools the server offers. */
  tools: Set<string>;
  call(name: string, args: Record<string, unknown>): Promise<ToolOutcome>;
  close(): Promise<void>;
  /** Secret values to keep out of anything printed or saved. */
  secrets: string[];
}

/** What a connection is opened from. */
export interface ConnectOptions {
  env: EnvSource;
  /** The project folder, where the default KV file lives (as for `deno task stdio`). */
  baseDir: string;
  /** The command line: `--client-name` names the caller, as for stdio. */
  args: readonly string[];
}

const CLIENT_INFO = { name: "handoff-mcp-hook", version: "1.0.0" };

/** Opens the remote server of `HANDOFF_URL`, else the local KV. */
export async function connect(options: ConnectOptions): Promise<HookConnection> {
  const url = options.env.get("HANDOFF_URL")?.trim();
  return url ? await connectRemote(url, options) : await connectLocal(options);
}

async function connectLocal(options: ConnectOptions): Promise<HookConnection> {
  const config = loadConfig(options.env, options.baseDir);
  const toolsets = loadToolsets(options.env);
  const caller = stdioCaller(config, options.args);
  const where = `the KV at ${config.kvPath ?? "the platform default"}`;
  const kv = await openKv(config.kvPath);
  try {
    // As a server does: a database an interrupted import left holds part of a file.
    const unfinished = await unfinishedImport(kv);
    if (unfinished !== undefined) throw new Error(`refusing to use it: ${unfinished}`);
    await prepareToolsets(toolsets, kv);
    const server = createMcpServer({ kv, config, caller }, toolsets);
    const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
    const client = new Client(CLIENT_INFO);
    await server.connect(serverSide);
    await client.connect(clientSide);
    const secrets = config.authToken ? [config.authToken] : [];
    return await ready(client, where, secrets, async () => {
      await client.close();
      await server.close();
      kv.close();
    });
  } catch (error) {
    kv.close();
    throw error;
  }
}

async function connectRemote(raw: string, options: ConnectOptions): Promise<HookConnection> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error("HANDOFF_URL is not a URL: give the server's /mcp URL");
  }
  const token = options.env.get("HANDOFF_TOKEN")?.trim();
  const headers: Record<string, string> = {};
  if (token) headers.Authorization = `Bearer ${token}`;
  const name = clientNameFlag(options.args);
  if (name !== undefined) headers["X-Client-Name"] = name;
  const secrets = [token ?? "", ...url.pathname.split("/").filter((s) => s.length >= 16)];
  const where = `the server at ${url.origin}`;
  const client = new Client(CLIENT_INFO);
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  return await ready(client, where, secrets.filter((s) => s !== ""), () => client.close());
}

async function ready(
  client: InstanceType<typeof Client>,
  where: string,
  secrets: string[],
  close: () => Promise<void>,
): Promise<HookConnection> {
  const { tools } = await client.listTools();
  return {
    where,
    secrets,
    tools: new Set(tools.map((t) => t.name)),
    close,
    async call(name, args) {
      const result = await client.callTool({ name, arguments: args });
      const content = (result.content ?? []) as { type: string; text?: string }[];
      return {
        text: content.filter((c) => c.type === "text").map((c) => c.text ?? "").join("\n"),
        isError: result.isError === true,
        structured: (result.structuredContent ?? {}) as Record<string, unknown>,
      };
    },
  };
}
