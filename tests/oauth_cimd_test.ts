/**
 * Sign-in by client ID metadata document (issue 24): a `client_id` that is a URL is fetched,
 * checked and then treated like a registered client, end to end with oauth4webapi against a
 * document served on loopback (`OAUTH_CIMD_ALLOW_LOOPBACK=on`, the local-testing setting).
 */

import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "../src/client/sdk_client.ts";
import { clientDocument, documentHost } from "./support/cimd.ts";
import { fetchSignIn } from "./support/console.ts";
import {
  authorizationUrl,
  consentTo,
  INSECURE,
  mcpStatus,
  o,
  oauthWorld,
  openConsent,
  REDIRECT_URI,
} from "./support/oauth4webapi.ts";

const LOOPBACK = { OAUTH_CIMD_ALLOW_LOOPBACK: "on" };

/** The refusal page's text for an authorization request of `clientId`. */
async function refusal(request: { url: URL }): Promise<string> {
  const page = await openConsent(request.url);
  assert.equal(page.status, 400, page.html);
  return page.html.replaceAll("&quot;", '"').replaceAll("&#39;", "'");
}

Deno.test("CIMD: a client known by its document signs in, is recorded by it, listed and revoked in the console", async () => {
  const world = await oauthWorld(LOOPBACK);
  const docs = documentHost();
  try {
    assert.equal(world.as.client_id_metadata_document_supported, true);
    const clientId = docs.url("/oauth/client.json");
    docs.set("/oauth/client.json", clientDocument(clientId));
    const client: o.Client = { client_id: clientId, token_endpoint_auth_method: "none" };

    const request = await authorizationUrl(world.as, client);
    const form = await openConsent(request.url);
    assert.equal(form.status, 200, form.html);
    assert.match(form.html, /Connect <q><bdi>Doc App<\/bdi><\/q>\?/);
    assert.match(
      form.html,
      new RegExp(
        `described by a document at</dt><dd><strong><bdi>127\\.0\\.0\\.1:${
          new URL(clientId).port
        }</bdi></strong>`,
      ),
    );
    const callback = await consentTo(world.as, client, request);
    const tokens = await o.processAuthorizationCodeResponse(
      world.as,
      client,
      await o.authorizationCodeGrantRequest(
        world.as,
        client,
        o.None(),
        callback,
        REDIRECT_URI,
        request.verifier,
        {
          ...INSECURE,
          additionalParameters: { resource: request.url.searchParams.get("resource")! },
        },
      ),
    );
    assert.equal(docs.fetches("/oauth/client.json"), 1, "the second form used the cached document");

    const mcp = new Client({ name: "cimd", version: "1" });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${world.server.origin}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${tokens.access_token}` } },
      }),
    );
    try {
      const r = await mcp.callTool({ name: "get_workspace_context", arguments: {} });
      const you = (r.structuredContent as { you_are: Record<string, unknown> }).you_are;
      assert.deepEqual([you.name, you.via, you.client_id], ["Doc App", "oauth", clientId]);
    } finally {
      await mcp.close();
    }

    const s = await fetchSignIn(world.server.origin);
    const apps = await (await fetch(`${world.server.origin}/console/apps`, {
      headers: { cookie: s.cookie },
    })).text();
    assert.match(
      apps,
      new RegExp(`data-id="${clientId.replaceAll(".", "\\.")}"><td><bdi>Doc App</bdi></td>`),
    );
    const revoked = await fetch(`${world.server.origin}/console/apps`, {
      method: "POST",
      redirect: "manual",
      headers: { cookie: s.cookie, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrf: s.csrf, action: "revoke", client_id: clientId }),
    });
    await revoked.body?.cancel();
    assert.equal(revoked.status, 303);
    assert.equal(revoked.headers.get("location"), "/console/apps?done=revoked");
    assert.equal(await mcpStatus(world.server.origin, tokens.access_token), 401);
  } finally {
    await docs.close();
    await world.close();
  }
});

Deno.test("CIMD: a document with another client_id, a redirect URI it does not list, or a bad shape is refused clearly", async () => {
  const world = await oauthWorld(LOOPBACK);
  const docs = documentHost();
  try {
    const ask = (path: string, overrides: Record<string, string | null> = {}) =>
      authorizationUrl(world.as, { client_id: docs.url(path) }, overrides);
    docs.set("/other.json", clientDocument("https://app.example/client.json"));
    assert.match(
      await refusal(await ask("/other.json")),
      /client_id is "https:\/\/app\.example\/client\.json", not the URL it was fetched from/,
    );
    docs.set("/good.json", clientDocument(docs.url("/good.json")));
    const elsewhere = await ask("/good.json", { redirect_uri: "http://127.0.0.1:9/elsewhere" });
    assert.match(await refusal(elsewhere), /Wrong return address/);
    docs.set(
      "/js.json",
      clientDocument(docs.url("/js.json"), { redirect_uris: ["javascript:alert(1)"] }),
    );
    assert.match(
      await refusal(await ask("/js.json")),
      /redirect_uris\.0: URL cannot use javascript:/,
    );
    docs.set(
      "/plain.json",
      clientDocument(docs.url("/plain.json"), {
        redirect_uris: ["http://app.example/cb"],
      }),
    );
    assert.match(
      await refusal(await ask("/plain.json")),
      /Redirect URI http:\/\/app\.example\/cb is not allowed: use https/,
    );
    docs.set(
      "/secret.json",
      clientDocument(docs.url("/secret.json"), {
        token_endpoint_auth_method: "client_secret_basic",
      }),
    );
    assert.match(
      await refusal(await ask("/secret.json")),
      /token_endpoint_auth_method must be none/,
    );
    assert.match(await refusal(await ask("/missing.json")), /answered HTTP 404, not 200/);
    docs.set("/moved.json", () => Response.redirect(docs.url("/good.json"), 302));
    assert.match(
      await refusal(await ask("/moved.json")),
      /HTTP 302, not 200: redirects are not followed/,
    );
    docs.set("/big.json", clientDocument(docs.url("/big.json"), { padding: "x".repeat(6000) }));
    assert.match(
      await refusal(await ask("/big.json")),
      /larger than 5120 bytes \(OAUTH_CIMD_MAX_BYTES\)/,
    );
    docs.set(
      "/html.json",
      () => new Response("<html>", { headers: { "content-type": "text/html" } }),
    );
    assert.match(await refusal(await ask("/html.json")), /text\/html, not application\/json/);
    let stored = 0;
    for await (const _ of world.server.kv.list({ prefix: ["oauth_client"] })) stored++;
    assert.equal(stored, 1, "only the valid document's client is kept (unapproved, expiring)");
  } finally {
    await docs.close();
    await world.close();
  }
});

Deno.test("CIMD: once approved, a changed document is refused until the owner revokes the app", async () => {
  const world = await oauthWorld({ ...LOOPBACK, OAUTH_CIMD_CACHE_SECONDS: "0" });
  const docs = documentHost();
  try {
    const clientId = docs.url("/app.json");
    docs.set("/app.json", clientDocument(clientId));
    const client: o.Client = { client_id: clientId, token_endpoint_auth_method: "none" };
    await consentTo(world.as, client, await authorizationUrl(world.as, client));
    docs.set(
      "/app.json",
      clientDocument(clientId, { redirect_uris: ["https://attacker.example/cb"] }),
    );
    const changed = await authorizationUrl(world.as, client, {
      redirect_uri: "https://attacker.example/cb",
    });
    assert.match(await refusal(changed), /changed since the owner approved this app/);
    assert.equal(docs.fetches("/app.json"), 2, "OAUTH_CIMD_CACHE_SECONDS=0 fetches every time");
  } finally {
    await docs.close();
    await world.close();
  }
});

Deno.test("CIMD: without the testing setting a loopback document is refused, and plain http anywhere", async () => {
  const world = await oauthWorld();
  try {
    const http = await authorizationUrl(world.as, { client_id: "http://127.0.0.1:9/client.json" });
    assert.match(await refusal(http), /a client_id URL must use https/);
    const loop = await authorizationUrl(world.as, { client_id: "https://127.0.0.1:9/client.json" });
    assert.match(
      await refusal(loop),
      /host 127\.0\.0\.1 is a loopback address \(allowed only with OAUTH_CIMD_ALLOW_LOOPBACK=on/,
    );
    const meta = await authorizationUrl(world.as, {
      client_id: "https://169.254.169.254/latest/meta-data",
    });
    assert.match(await refusal(meta), /is a link-local address/);
    const dots = await authorizationUrl(world.as, {
      client_id: "https://app.example/a/../client.json",
    });
    assert.match(await refusal(dots), /normalised URL without \. or \.\. segments/);
  } finally {
    await world.close();
  }
});

Deno.test("CIMD: a document whose body stalls after its headers is refused naming the time limit, not a 500", async () => {
  const world = await oauthWorld({ ...LOOPBACK, OAUTH_CIMD_TIMEOUT_MS: "500" });
  const docs = documentHost();
  try {
    const clientId = docs.url("/slow.json");
    const start = JSON.stringify(clientDocument(clientId)).slice(0, 10);
    docs.set("/slow.json", () =>
      new Response(
        new ReadableStream({ start: (c) => c.enqueue(new TextEncoder().encode(start)) }),
        { headers: { "content-type": "application/json" } },
      ));
    assert.match(
      await refusal(await authorizationUrl(world.as, { client_id: clientId })),
      /did not arrive within 500 ms \(OAUTH_CIMD_TIMEOUT_MS\)/,
    );
  } finally {
    await docs.close();
    await world.close();
  }
});
