import assert from "node:assert/strict";
import { createOAuthServer } from "./server.ts";
import { loadOAuthSettings } from "./settings.ts";
import { issued, T0, withKv } from "../../tests/support/oauth_store.ts";

const settings = (vars: Record<string, string> = {}) =>
  loadOAuthSettings(new Map(Object.entries({ OAUTH: "on", ...vars })));
const req = (path: string, init?: RequestInit) =>
  new Request(`https://handoff.example${path}`, init);

Deno.test("verify() names the caller by client_name, or by its CLIENT_NAME_ALIASES entry", async () => {
  await withKv(async (kv) => {
    const { client, tokens } = await issued(kv, "claude-ai-connector");
    const plain = createOAuthServer({ kv, settings: settings(), authToken: "t", now: () => T0 });
    assert.deepEqual(await plain.verify(req("/mcp"), tokens.accessToken), {
      clientId: client.id,
      name: "claude-ai-connector",
    });
    const aliased = createOAuthServer({
      kv,
      settings: settings({ CLIENT_NAME_ALIASES: `other=X,${client.id}=Claude` }),
      authToken: "t",
      now: () => T0,
    });
    assert.equal((await aliased.verify(req("/mcp"), tokens.accessToken))?.name, "Claude");
    assert.equal(await aliased.verify(req("/mcp"), "unknown"), undefined);
  });
});

Deno.test("verify() refuses a token issued for another origin's resource", async () => {
  await withKv(async (kv) => {
    const { tokens } = await issued(kv);
    const server = createOAuthServer({ kv, settings: settings(), authToken: "t", now: () => T0 });
    const elsewhere = new Request("https://other.example/mcp");
    assert.equal(await server.verify(elsewhere, tokens.accessToken), undefined);
  });
});

Deno.test("handle() answers a KV failure as an OAuth server_error, not a crash", async () => {
  const kv = await Deno.openKv(":memory:");
  kv.close();
  const server = createOAuthServer({ kv, settings: settings(), authToken: "t" });
  const logged: unknown[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => void logged.push(args);
  try {
    const res = await server.handle(req("/register", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ redirect_uris: ["https://app.example/cb"] }),
    }));
    assert.equal(res?.status, 500);
    assert.equal((await res!.json()).error, "server_error");
    assert.equal(logged.length, 1);
  } finally {
    console.error = original;
  }
});

Deno.test("handle() leaves every non-OAuth path to the rest of the server", async () => {
  await withKv(async (kv) => {
    const server = createOAuthServer({ kv, settings: settings(), authToken: "t" });
    for (
      const path of ["/mcp", "/sse", "/api/handoffs", "/.well-known/oauth-protected-resource/x"]
    ) {
      assert.equal(await server.handle(req(path)), undefined, path);
    }
  });
});
