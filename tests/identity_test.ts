/** End to end: the real HTTP server and the SDK's own clients; the caller reaches the tool. */

import assert from "node:assert/strict";
import { loadConfig } from "../src/config.ts";
import { startHttpServer } from "../src/http/serve.ts";
import {
  Client,
  SSEClientTransport,
  StreamableHTTPClientTransport,
} from "../src/mcp/sdk_client.ts";
import { randomToken } from "../src/kit/kv.ts";
import { call } from "./support/harness.ts";
import { whoamiToolset } from "./support/whoami.ts";

const CODEX = randomToken(24);

async function withServer(fn: (origin: string, master: string) => Promise<void>): Promise<void> {
  const config = loadConfig(
    new Map([
      ["PORT", "0"],
      ["AUTH_TOKEN", randomToken(32)],
      ["AUTH_TOKENS", `codex=${CODEX}`],
    ]),
  );
  const kv = await Deno.openKv(":memory:");
  const server = await startHttpServer(config, kv, [whoamiToolset()]);
  try {
    await fn(server.origin, server.token!);
  } finally {
    await server.shutdown();
    kv.close();
  }
}

async function whoami(
  kind: "http" | "sse",
  url: string,
  headers: Record<string, string> = {},
): Promise<unknown> {
  const client = new Client({ name: "identity-test", version: "1.0.0" });
  const transport = kind === "http"
    ? new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers } })
    : new SSEClientTransport(new URL(`${url}/sse`), { requestInit: { headers } });
  await client.connect(transport);
  try {
    return (await call(client, "whoami")).structured;
  } finally {
    await client.close();
  }
}

for (const kind of ["http", "sse"] as const) {
  Deno.test(`${kind}: a named token, X-Client-Name and the default each reach the tool as the caller`, async () => {
    await withServer(async (origin, master) => {
      assert.deepEqual(await whoami(kind, `${origin}/${CODEX}`), { name: "codex", via: "token" });
      assert.deepEqual(await whoami(kind, `${origin}/${CODEX}`, { "x-client-name": "claude" }), {
        name: "codex",
        via: "token",
      });
      assert.deepEqual(await whoami(kind, `${origin}/${master}`, { "x-client-name": "claude" }), {
        name: "claude",
        via: "header",
      });
      assert.deepEqual(await whoami(kind, `${origin}/${master}`), {
        name: "owner",
        via: "default",
      });
    });
  });
}
