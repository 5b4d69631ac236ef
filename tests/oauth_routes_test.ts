/** The OAuth routes over HTTP: off by default, the 401 challenge, the consent page, origins, the clients task. */

import assert from "node:assert/strict";
import {
  OAuthMetadataSchema,
  OAuthProtectedResourceMetadataSchema,
} from "../src/oauth/sdk_auth.ts";
import { runTask, startServer, tempKvPath } from "./support/harness.ts";
import {
  authorizationUrl,
  discoverFrom401,
  mcpStatus,
  OWNER_SECRET,
  registerClient,
  signedIn,
} from "./support/oauth4webapi.ts";
import { openKv } from "../src/kit/open_kv.ts";

const OAUTH_PATHS = [
  "/.well-known/oauth-protected-resource",
  "/.well-known/oauth-protected-resource/mcp",
  "/.well-known/oauth-authorization-server",
  "/.well-known/openid-configuration",
  "/authorize",
];

async function statusOf(url: string, init: RequestInit = {}): Promise<Response> {
  const res = await fetch(url, { redirect: "manual", ...init });
  await res.body?.cancel();
  return res;
}

Deno.test("without OAUTH=on the OAuth routes are 404 and /mcp without a token stays 404", async () => {
  const server = await startServer();
  try {
    for (const path of [...OAUTH_PATHS, "/mcp", "/sse"]) {
      const res = await statusOf(`${server.origin}${path}`);
      assert.equal(res.status, 404, path);
      assert.equal(res.headers.get("www-authenticate"), null, path);
    }
    for (const path of ["/register", "/token", "/revoke"]) {
      assert.equal((await statusOf(`${server.origin}${path}`, { method: "POST" })).status, 404);
    }
  } finally {
    await server.close();
  }
});

Deno.test("with OAUTH=on, /mcp, /sse and /messages without credentials answer 401 with resource_metadata", async () => {
  const server = await startServer({ env: { OAUTH: "on" } });
  try {
    const expected =
      `Bearer resource_metadata="${server.origin}/.well-known/oauth-protected-resource"`;
    for (const [method, path] of [["POST", "/mcp"], ["GET", "/sse"], ["POST", "/messages"]]) {
      const res = await statusOf(`${server.origin}${path}`, { method });
      assert.equal(res.status, 401, path);
      assert.equal(res.headers.get("www-authenticate"), expected, path);
    }
    // Everything else keeps its 404, and a wrong path token is still a 404.
    assert.equal((await statusOf(`${server.origin}/api/handoffs`)).status, 404);
    assert.equal(
      (await statusOf(`${server.origin}/wrong-token/mcp`, { method: "POST" })).status,
      404,
    );
    // An unknown bearer is told so.
    const refused = await statusOf(`${server.origin}/sse`, {
      headers: { authorization: "Bearer made-up" },
    });
    assert.equal(refused.status, 401);
    assert.match(refused.headers.get("www-authenticate")!, /^Bearer error="invalid_token"/);
    assert.match(refused.headers.get("www-authenticate")!, /resource_metadata="/);
  } finally {
    await server.close();
  }
});

Deno.test("the discovery documents parse with the MCP SDK's own schemas", async () => {
  const server = await startServer({ env: { OAUTH: "on" } });
  try {
    const get = async (path: string) => await (await fetch(`${server.origin}${path}`)).json();
    const root = OAuthProtectedResourceMetadataSchema.parse(
      await get("/.well-known/oauth-protected-resource"),
    );
    assert.equal(root.resource, `${server.origin}/`);
    for (const endpoint of ["mcp", "sse"]) {
      const suffixed = OAuthProtectedResourceMetadataSchema.parse(
        await get(`/.well-known/oauth-protected-resource/${endpoint}`),
      );
      assert.equal(suffixed.resource, `${server.origin}/${endpoint}`);
    }
    assert.equal(
      (await statusOf(`${server.origin}/.well-known/oauth-protected-resource/other`)).status,
      404,
    );
    const as = OAuthMetadataSchema.parse(await get("/.well-known/oauth-authorization-server"));
    assert.deepEqual(await get("/.well-known/openid-configuration"), as);
    assert.equal(as.registration_endpoint, `${server.origin}/register`);
  } finally {
    await server.close();
  }
});

Deno.test("the consent page shows the client's name and redirect host, asks for the secret, never frames, runs no script", async () => {
  const server = await startServer({ env: { OAUTH: "on" } });
  try {
    const as = await discoverFrom401(server.origin);
    const reg = await registerClient(as, { name: `Claude <script>alert(1)</script>` });
    const request = await authorizationUrl(as, reg.client);
    const res = await fetch(request.url);
    const html = await res.text();
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-security-policy")!, /frame-ancestors 'none'/);
    assert.match(res.headers.get("content-security-policy")!, /default-src 'none'/);
    assert.equal(res.headers.get("x-frame-options"), "DENY");
    assert.match(res.headers.get("set-cookie")!, /HttpOnly; SameSite=Strict/);
    assert.ok(!/<script/i.test(html), "no script, and the client's name is escaped");
    assert.match(html, /Claude &lt;script&gt;/);
    assert.match(html, /127\.0\.0\.1:9/);
    assert.match(
      html,
      /Owner secret \(AUTH_TOKEN\)/,
      "AUTH_TOKEN is asked when no owner secret is set",
    );
    assert.match(html, /name="csrf" value="[A-Za-z0-9_-]{43}"/);
  } finally {
    await server.close();
  }
});

Deno.test("PUBLIC_URL sets every advertised URL; forwarded headers count only with TRUST_PROXY=on", async () => {
  const forwarded = { "x-forwarded-proto": "https", "x-forwarded-host": "proxy.example" };
  const metadataOf = async (origin: string) =>
    await (await fetch(`${origin}/.well-known/oauth-authorization-server`, { headers: forwarded }))
      .json();
  const fixed = await startServer({
    env: { OAUTH: "on", PUBLIC_URL: "https://handoff.example", ALLOWED_HOSTS: "proxy.example" },
  });
  try {
    assert.equal((await metadataOf(fixed.origin)).token_endpoint, "https://handoff.example/token");
  } finally {
    await fixed.close();
  }
  const untrusted = await startServer({ env: { OAUTH: "on" } });
  try {
    assert.equal((await metadataOf(untrusted.origin)).issuer, `${untrusted.origin}/`);
  } finally {
    await untrusted.close();
  }
  const trusted = await startServer({ env: { OAUTH: "on", TRUST_PROXY: "on" } });
  try {
    assert.equal((await metadataOf(trusted.origin)).issuer, "https://proxy.example/");
  } finally {
    await trusted.close();
  }
});

Deno.test("deno task clients lists a signed-in client with its last use, and revokes it", async () => {
  const { path, cleanup } = await tempKvPath();
  const kv = await openKv(path);
  const server = await startServer({ env: { OAUTH: "on", OAUTH_OWNER_SECRET: OWNER_SECRET }, kv });
  try {
    const as = await discoverFrom401(server.origin);
    const world = {
      server,
      as,
      clock: { now: Date.now, advance() {} },
      close: () => server.close(),
    };
    const signed = await signedIn(world, { name: "Claude" });
    const task = async (...args: string[]) => {
      const out = await runTask(["clients", ...args], { KV_PATH: path });
      return { code: out.code, text: out.stdout };
    };
    const listed = await task();
    assert.equal(listed.code, 0);
    const row = listed.text.split("\n").find((l) => l.includes("\tClaude\t"));
    assert.ok(row, listed.text);
    assert.match(row, /\t\d{4}-\d\d-\d\dT[^\t]+\t1$/, "last use and one grant");
    const revoked = await task("revoke", signed.client.client_id);
    assert.equal(revoked.code, 0, revoked.text);
    assert.equal(await mcpStatus(server.origin, signed.tokens.access_token), 401);
  } finally {
    await server.close();
    kv.close();
    await cleanup();
  }
});

Deno.test("registration is limited per address (OAUTH_MAX_REGISTRATIONS), with a clear error", async () => {
  const server = await startServer({ env: { OAUTH: "on", OAUTH_MAX_REGISTRATIONS: "2" } });
  try {
    const register = () =>
      fetch(`${server.origin}/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ client_name: "n", redirect_uris: ["https://app.example/cb"] }),
      });
    for (let i = 0; i < 2; i++) assert.equal((await (await register()).json()).client_name, "n");
    const refused = await register();
    assert.equal(refused.status, 429);
    const body = await refused.json();
    assert.equal(body.error, "temporarily_unavailable");
    assert.match(body.error_description, /OAUTH_MAX_REGISTRATIONS/);
  } finally {
    await server.close();
  }
});

Deno.test("authorize answers oversized input with a clear refusal, never a server error", async () => {
  const server = await startServer({ env: { OAUTH: "on" } });
  try {
    const as = await discoverFrom401(server.origin);
    const reg = await registerClient(as);
    const huge = await fetch(`${server.origin}/authorize?client_id=${"x".repeat(5000)}`);
    assert.equal(huge.status, 400);
    assert.match(await huge.text(), /not registered here/);
    const request = await authorizationUrl(as, reg.client, { state: "s".repeat(2000) });
    const res = await statusOf(request.url.href);
    assert.equal(res.status, 303);
    const back = new URL(res.headers.get("location")!).searchParams;
    assert.equal(back.get("error"), "invalid_request");
    assert.match(back.get("error_description")!, /at most 1024 characters/);
  } finally {
    await server.close();
  }
});
