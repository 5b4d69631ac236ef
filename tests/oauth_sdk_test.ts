/**
 * The MCP SDK's own client OAuth flow against the real server: discovery from the 401,
 * dynamic registration, the consent form, the code exchange, a refresh, and tool calls over
 * Streamable HTTP and SSE.
 */

import assert from "node:assert/strict";
import {
  Client,
  SSEClientTransport,
  StreamableHTTPClientTransport,
} from "../src/client/sdk_client.ts";
import { call, startServer } from "./support/harness.ts";
import { MemoryProvider, movableClock, OAUTH_ENV, signIn } from "./support/oauth.ts";

for (const confidential of [false, true]) {
  const kind = confidential ? "confidential" : "public";
  Deno.test(`SDK client (${kind}) signs in by plain URL, calls tools, refreshes, calls again`, async () => {
    const clock = movableClock();
    const server = await startServer({ env: OAUTH_ENV, now: clock.now });
    try {
      const provider = new MemoryProvider(`SDK ${kind}`, confidential);
      await signIn(server.origin, provider);
      const registered = provider.client as { token_endpoint_auth_method?: string };
      assert.equal(
        registered.token_endpoint_auth_method,
        confidential ? "client_secret_basic" : "none",
      );
      assert.equal(provider.client?.client_secret !== undefined, confidential);
      const first = provider.saved!;
      assert.ok(first.access_token && first.refresh_token);

      const client = new Client({ name: "sdk-oauth", version: "1.0.0" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${server.origin}/mcp`), {
          authProvider: provider,
        }),
      );
      const set = await call(client, "set_north_star", {
        project_id: "oauth",
        text: "Ship sign-in",
      });
      assert.equal(set.isError, false, set.text);

      // Past the access token's life the server answers invalid_token; the SDK refreshes.
      clock.advance(2 * 3600_000);
      const state = await call(client, "get_state", { project_id: "oauth" });
      assert.equal(state.isError, false, state.text);
      assert.match(state.text, /Ship sign-in/);
      assert.notEqual(provider.saved!.access_token, first.access_token);
      assert.notEqual(provider.saved!.refresh_token, first.refresh_token);
      await client.close();
    } finally {
      await server.close();
    }
  });
}

Deno.test("SDK client signed in with OAuth also connects over legacy SSE", async () => {
  const server = await startServer({ env: OAUTH_ENV });
  try {
    const provider = new MemoryProvider("SDK over SSE");
    await signIn(server.origin, provider);
    const client = new Client({ name: "sdk-oauth-sse", version: "1.0.0" });
    await client.connect(
      new SSEClientTransport(new URL(`${server.origin}/sse`), { authProvider: provider }),
    );
    const listed = await client.listTools();
    assert.ok(listed.tools.some((t) => t.name === "get_state"));
    await client.close();
  } finally {
    await server.close();
  }
});

Deno.test("OAuth on leaves the path token and the static bearer working as before", async () => {
  const server = await startServer({ env: OAUTH_ENV });
  try {
    const byPath = new Client({ name: "path", version: "1.0.0" });
    await byPath.connect(
      new StreamableHTTPClientTransport(new URL(`${server.origin}/${server.token}/mcp`)),
    );
    assert.equal((await call(byPath, "list_projects")).isError, false);
    await byPath.close();
    const byBearer = new Client({ name: "bearer", version: "1.0.0" });
    await byBearer.connect(
      new StreamableHTTPClientTransport(new URL(`${server.origin}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${server.token}` } },
      }),
    );
    assert.equal((await call(byBearer, "list_projects")).isError, false);
    await byBearer.close();
    const wrong = await fetch(`${server.origin}/not-the-token/mcp`, { method: "POST" });
    await wrong.body?.cancel();
    assert.equal(wrong.status, 404);
  } finally {
    await server.close();
  }
});
