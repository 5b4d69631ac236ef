/** A test-only toolset with one tool that answers who called it, and a server and client for it. */

import { loadConfig } from "../../src/config.ts";
import { startHttpServer } from "../../src/http/serve.ts";
import { randomToken } from "../../src/kit/ids.ts";
import { callerOf } from "../../src/tools/caller.ts";
import {
  Client,
  type OAuthClientProvider,
  SSEClientTransport,
  StreamableHTTPClientTransport,
} from "../../src/client/sdk_client.ts";
import type { Toolset } from "../../src/tools/toolset.ts";
import type { Route } from "../../src/kit/web.ts";
import { call } from "./mcp.ts";

/** A toolset whose `whoami` tool returns `callerOf(ctx, deps)` as structured content. */
export function whoamiToolset(routes: Route[] = []): Toolset {
  return {
    name: "whoami",
    instructions: "whoami answers who is calling.",
    register(server, deps) {
      server.registerTool("whoami", { description: "Who is calling" }, (ctx) => {
        const caller = callerOf(ctx, deps);
        return {
          content: [{ type: "text", text: JSON.stringify(caller) }],
          structuredContent: { ...caller },
        };
      });
    },
    routes: () => routes,
  };
}

/**
 * Runs `fn` against the real HTTP server on `kv` serving only `whoami`, configured by `env` on a
 * free port with a fresh master token (unless `env` sets them); the server stops afterwards.
 */
export async function withWhoamiServer(
  kv: Deno.Kv,
  env: Record<string, string>,
  fn: (origin: string, master: string) => Promise<void>,
): Promise<void> {
  const config = loadConfig(
    new Map(Object.entries({ PORT: "0", AUTH_TOKEN: randomToken(32), ...env })),
  );
  const server = await startHttpServer(config, kv, [whoamiToolset()]);
  try {
    await fn(server.origin, server.token!);
  } finally {
    await server.shutdown();
  }
}

/** Who the `whoami` tool at `url` (a base with or without a token) says is calling, over `kind`. */
export async function whoami(
  kind: "http" | "sse",
  url: string,
  options: { headers?: Record<string, string>; authProvider?: OAuthClientProvider } = {},
): Promise<unknown> {
  const client = new Client({ name: "whoami-test", version: "1.0.0" });
  const transport = {
    authProvider: options.authProvider,
    requestInit: { headers: options.headers ?? {} },
  };
  await client.connect(
    kind === "http"
      ? new StreamableHTTPClientTransport(new URL(`${url}/mcp`), transport)
      : new SSEClientTransport(new URL(`${url}/sse`), transport),
  );
  try {
    return (await call(client, "whoami")).structured;
  } finally {
    await client.close();
  }
}
