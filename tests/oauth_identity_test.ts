/**
 * End to end: a client signed in with OAuth reaches tools as its registered name, `via: oauth`,
 * whatever `X-Client-Name` claims, over Streamable HTTP and SSE; aliases rename it; OAuth
 * outranks a named token.
 */

import assert from "node:assert/strict";
import { loadConfig } from "../src/config.ts";
import { startHttpServer } from "../src/http/serve.ts";
import { randomToken } from "../src/kit/kv.ts";
import {
  Client,
  SSEClientTransport,
  StreamableHTTPClientTransport,
} from "../src/mcp/sdk_client.ts";
import { call } from "./support/harness.ts";
import { MemoryProvider, signIn } from "./support/oauth.ts";
import { whoamiToolset } from "./support/whoami.ts";

const OWNER_SECRET = randomToken(32);
const CODEX = randomToken(24);

async function withServer(
  kv: Deno.Kv,
  env: Record<string, string>,
  fn: (origin: string) => Promise<void>,
): Promise<void> {
  const config = loadConfig(
    new Map(Object.entries({
      PORT: "0",
      AUTH_TOKEN: randomToken(32),
      AUTH_TOKENS: `codex=${CODEX}`,
      OAUTH: "on",
      OAUTH_OWNER_SECRET: OWNER_SECRET,
      ...env,
    })),
  );
  const server = await startHttpServer(config, kv, [whoamiToolset()]);
  try {
    await fn(server.origin);
  } finally {
    await server.shutdown();
  }
}

async function whoami(
  kind: "http" | "sse",
  url: string,
  provider: MemoryProvider | undefined,
  headers: Record<string, string> = {},
): Promise<unknown> {
  const client = new Client({ name: "oauth-identity", version: "1.0.0" });
  const options = { authProvider: provider, requestInit: { headers } };
  await client.connect(
    kind === "http"
      ? new StreamableHTTPClientTransport(new URL(`${url}/mcp`), options)
      : new SSEClientTransport(new URL(`${url}/sse`), options),
  );
  try {
    return (await call(client, "whoami")).structured;
  } finally {
    await client.close();
  }
}

Deno.test("an OAuth client reaches tools as its registered name via oauth; X-Client-Name changes nothing", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    await withServer(kv, {}, async (origin) => {
      const provider = new MemoryProvider("Claude.ai connector");
      await signIn(origin, provider, OWNER_SECRET);
      const expected = {
        name: "Claude.ai connector",
        via: "oauth",
        clientId: provider.client!.client_id,
      };
      for (const kind of ["http", "sse"] as const) {
        assert.deepEqual(await whoami(kind, origin, provider), expected, kind);
        assert.deepEqual(
          await whoami(kind, origin, provider, { "x-client-name": "ChatGPT" }),
          expected,
          `${kind} with a header claiming another name`,
        );
      }
      // OAuth outranks a named token in the path.
      assert.deepEqual(await whoami("http", `${origin}/${CODEX}`, provider), expected);
      assert.deepEqual(await whoami("http", `${origin}/${CODEX}`, undefined), {
        name: "codex",
        via: "token",
      });
    });
  } finally {
    kv.close();
  }
});

Deno.test("CLIENT_NAME_ALIASES renames an OAuth client for every request, tokens unchanged", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    // The same port for both servers: a token is bound to the origin it was issued for.
    const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const PORT = String(probe.addr.port);
    probe.close();
    const provider = new MemoryProvider("chatgpt-connector-7f3a");
    await withServer(kv, { PORT }, (origin) => signIn(origin, provider, OWNER_SECRET));
    const id = provider.client!.client_id;
    await withServer(kv, { PORT, CLIENT_NAME_ALIASES: `${id}=ChatGPT` }, async (origin) => {
      assert.deepEqual(await whoami("http", origin, provider), {
        name: "ChatGPT",
        via: "oauth",
        clientId: id,
      });
    });
  } finally {
    kv.close();
  }
});
