/** oauth4webapi (a client written by others) driving every OAuth endpoint, and each refusal. */

import assert from "node:assert/strict";
import { deleteClient } from "../src/oauth/store_clients.ts";
import {
  authorizationUrl,
  challengeOf,
  consentTo,
  exchange,
  INSECURE,
  mcpStatus,
  o,
  oauthWorld,
  openConsent,
  OWNER_SECRET,
  redeem,
  REDIRECT_URI,
  registerClient,
  signedIn,
  submitConsent,
  tokenError,
} from "./support/oauth4webapi.ts";

Deno.test("oauth4webapi: discovery from the 401, registration, consent, exchange, refresh, revocation", async () => {
  const world = await oauthWorld();
  try {
    const { as, server } = world;
    assert.equal(as.issuer, `${server.origin}/`);
    assert.deepEqual(as.code_challenge_methods_supported, ["S256"]);
    // The path-suffixed resource metadata names the MCP endpoint itself.
    const suffixed = await o.processResourceDiscoveryResponse(
      new URL(`${server.origin}/mcp`),
      await o.resourceDiscoveryRequest(new URL(`${server.origin}/mcp`), INSECURE),
    );
    assert.deepEqual(suffixed.authorization_servers, [as.issuer]);
    // Clients that try OpenID discovery first find the same document.
    const oidc = await o.processDiscoveryResponse(
      new URL(as.issuer),
      await o.discoveryRequest(new URL(as.issuer), INSECURE),
    );
    assert.equal(oidc.token_endpoint, as.token_endpoint);

    for (const confidential of [false, true]) {
      const signed = await signedIn(world, { confidential });
      assert.equal(signed.tokens.token_type, "bearer");
      assert.ok(signed.tokens.expires_in! > 0 && signed.tokens.expires_in! <= 3600);
      assert.equal(await mcpStatus(server.origin, signed.tokens.access_token), 200);

      const refreshed = await o.processRefreshTokenResponse(
        as,
        signed.client,
        await o.refreshTokenGrantRequest(
          as,
          signed.client,
          signed.auth,
          signed.tokens.refresh_token!,
          INSECURE,
        ),
      );
      assert.notEqual(refreshed.refresh_token, signed.tokens.refresh_token);
      assert.equal(await mcpStatus(server.origin, refreshed.access_token), 200);
      // Rotation retires the access token the refresh replaced.
      assert.equal(await mcpStatus(server.origin, signed.tokens.access_token), 401);

      await o.processRevocationResponse(
        await o.revocationRequest(as, signed.client, signed.auth, refreshed.access_token, INSECURE),
      );
      const challenge = await challengeOf(server.origin, "/mcp", refreshed.access_token);
      assert.equal(challenge.parameters.error, "invalid_token");
      assert.equal(
        await tokenError(
          o.refreshTokenGrantRequest(
            as,
            signed.client,
            signed.auth,
            refreshed.refresh_token!,
            INSECURE,
          ),
        ),
        "invalid_grant",
      );
    }
  } finally {
    await world.close();
  }
});

Deno.test("OAuth refuses a redirect URI that was not registered, before and at the token endpoint", async () => {
  const world = await oauthWorld();
  try {
    const other = "http://127.0.0.1:9/other";
    const reg = await registerClient(world.as, { redirectUris: [REDIRECT_URI, other] });
    const stranger = await authorizationUrl(world.as, reg.client, {
      redirect_uri: "https://attacker.example/cb",
    });
    const page = await fetch(stranger.url, { redirect: "manual" });
    assert.equal(page.status, 400);
    assert.equal(page.headers.get("location"), null, "nothing is sent to an unregistered URI");
    assert.match(await page.text(), /not one the app registered/);

    const request = await authorizationUrl(world.as, reg.client);
    const callback = await consentTo(world.as, reg.client, request);
    const swapped = { ...request, redirectUri: other };
    assert.equal(await tokenError(exchange(world.as, reg, callback, swapped)), "invalid_grant");
  } finally {
    await world.close();
  }
});

Deno.test("OAuth registration refuses redirect URIs that are neither https nor loopback http", async () => {
  const world = await oauthWorld();
  try {
    for (
      const uri of ["http://example.com/cb", "https://app.example/cb#frag", "javascript:alert(1)"]
    ) {
      const error = await registerClient(world.as, { redirectUris: [uri] }).then(
        () => undefined,
        (e) => e,
      );
      assert.ok(error instanceof o.ResponseBodyError, `${uri} was accepted`);
      assert.match(error.error, /^invalid_(redirect_uri|client_metadata)$/);
    }
  } finally {
    await world.close();
  }
});

for (
  const [name, overrides, expected] of [
    [
      "missing PKCE",
      { code_challenge: null, code_challenge_method: null },
      /code_challenge is required/,
    ],
    ["plain PKCE", { code_challenge_method: "plain" }, /plain is not supported/],
  ] as const
) {
  Deno.test(`OAuth authorize refuses ${name}, back at the client with invalid_request`, async () => {
    const world = await oauthWorld();
    try {
      const reg = await registerClient(world.as);
      const request = await authorizationUrl(world.as, reg.client, overrides);
      if (name === "plain PKCE") request.url.searchParams.set("code_challenge", request.verifier);
      const res = await fetch(request.url, { redirect: "manual" });
      await res.body?.cancel();
      assert.equal(res.status, 303);
      const error = (() => {
        try {
          o.validateAuthResponse(
            world.as,
            reg.client,
            new URL(res.headers.get("location")!),
            request.state,
          );
        } catch (e) {
          return e;
        }
      })();
      assert.ok(error instanceof o.AuthorizationResponseError);
      assert.equal(error.error, "invalid_request");
      assert.match(error.error_description!, expected);
    } finally {
      await world.close();
    }
  });
}

Deno.test("OAuth token endpoint refuses a wrong PKCE verifier (and the code stays usable by its owner)", async () => {
  const world = await oauthWorld();
  try {
    const reg = await registerClient(world.as);
    const request = await authorizationUrl(world.as, reg.client);
    const callback = await consentTo(world.as, reg.client, request);
    const wrong = { ...request, verifier: o.generateRandomCodeVerifier() };
    assert.equal(await tokenError(exchange(world.as, reg, callback, wrong)), "invalid_grant");
    const tokens = await redeem(world.as, reg, callback, request);
    assert.equal(await mcpStatus(world.server.origin, tokens.access_token), 200);
  } finally {
    await world.close();
  }
});

Deno.test("OAuth code reused: refused, and the tokens the first use produced are revoked", async () => {
  const world = await oauthWorld();
  try {
    const reg = await registerClient(world.as);
    const request = await authorizationUrl(world.as, reg.client);
    const callback = await consentTo(world.as, reg.client, request);
    const first = await redeem(world.as, reg, callback, request);
    assert.equal(await mcpStatus(world.server.origin, first.access_token), 200);
    assert.equal(await tokenError(exchange(world.as, reg, callback, request)), "invalid_grant");
    assert.equal(await mcpStatus(world.server.origin, first.access_token), 401);
    assert.equal(
      await tokenError(
        o.refreshTokenGrantRequest(world.as, reg.client, reg.auth, first.refresh_token!, INSECURE),
      ),
      "invalid_grant",
    );
  } finally {
    await world.close();
  }
});

Deno.test("OAuth code expired (clock moved past its life) is refused", async () => {
  const world = await oauthWorld();
  try {
    const reg = await registerClient(world.as);
    const request = await authorizationUrl(world.as, reg.client);
    const callback = await consentTo(world.as, reg.client, request);
    world.clock.advance(61_000);
    assert.equal(await tokenError(exchange(world.as, reg, callback, request)), "invalid_grant");
  } finally {
    await world.close();
  }
});

/** The refresh request of `signed` with a given token, raw and processed. */
function refresher(
  world: Awaited<ReturnType<typeof oauthWorld>>,
  signed: Awaited<ReturnType<typeof signedIn>>,
) {
  const refresh = (token: string) =>
    o.refreshTokenGrantRequest(world.as, signed.client, signed.auth, token, INSECURE);
  const refreshed = async (token: string) =>
    await o.processRefreshTokenResponse(world.as, signed.client, await refresh(token));
  return { refresh, refreshed };
}

Deno.test("OAuth refresh whose response is dropped: the retry gets the same pair once; reuse after that revokes the grant", async () => {
  const world = await oauthWorld();
  try {
    const signed = await signedIn(world);
    const { refresh, refreshed } = refresher(world, signed);
    // The first answer is read from the wire and dropped, as a client that timed out would.
    const dropped = await refresh(signed.tokens.refresh_token!);
    assert.equal(dropped.status, 200);
    await dropped.body?.cancel();
    const retried = await refreshed(signed.tokens.refresh_token!);
    assert.equal(await mcpStatus(world.server.origin, retried.access_token), 200);
    assert.equal(await tokenError(refresh(signed.tokens.refresh_token!)), "invalid_grant");
    assert.equal(await mcpStatus(world.server.origin, retried.access_token), 401);
    assert.equal(await tokenError(refresh(retried.refresh_token!)), "invalid_grant");
  } finally {
    await world.close();
  }
});

Deno.test("OAuth refresh twice at once: both get the same new pair; once it is used the old token revokes", async () => {
  const world = await oauthWorld();
  try {
    const signed = await signedIn(world);
    const { refresh, refreshed } = refresher(world, signed);
    const [a, b] = await Promise.all([
      refresh(signed.tokens.refresh_token!),
      refresh(signed.tokens.refresh_token!),
    ]);
    const first = await o.processRefreshTokenResponse(world.as, signed.client, a);
    const second = await o.processRefreshTokenResponse(world.as, signed.client, b);
    assert.equal(first.access_token, second.access_token);
    assert.equal(first.refresh_token, second.refresh_token);
    const next = await refreshed(first.refresh_token!);
    assert.equal(await mcpStatus(world.server.origin, next.access_token), 200);
    assert.equal(await tokenError(refresh(signed.tokens.refresh_token!)), "invalid_grant");
    assert.equal(await mcpStatus(world.server.origin, next.access_token), 401, "grant revoked");
  } finally {
    await world.close();
  }
});

Deno.test("OAuth refresh reused after the grace (OAUTH_REFRESH_GRACE_SECONDS): refused, the whole grant revoked", async () => {
  const world = await oauthWorld();
  try {
    const signed = await signedIn(world);
    const { refresh, refreshed } = refresher(world, signed);
    const next = await refreshed(signed.tokens.refresh_token!);
    world.clock.advance(61_000);
    assert.equal(await tokenError(refresh(signed.tokens.refresh_token!)), "invalid_grant");
    assert.equal(await mcpStatus(world.server.origin, next.access_token), 401);
    assert.equal(await tokenError(refresh(next.refresh_token!)), "invalid_grant");
  } finally {
    await world.close();
  }
});

Deno.test("OAuth refuses a token for another resource, at authorize and at the token endpoint", async () => {
  const world = await oauthWorld();
  try {
    const reg = await registerClient(world.as);
    const elsewhere = await authorizationUrl(world.as, reg.client, {
      resource: "https://other.example/mcp",
    });
    const res = await fetch(elsewhere.url, { redirect: "manual" });
    await res.body?.cancel();
    assert.equal(new URL(res.headers.get("location")!).searchParams.get("error"), "invalid_target");

    const request = await authorizationUrl(world.as, reg.client);
    const callback = await consentTo(world.as, reg.client, request);
    assert.equal(
      await tokenError(
        exchange(world.as, reg, callback, request, { resource: "https://other.example/mcp" }),
      ),
      "invalid_target",
    );
  } finally {
    await world.close();
  }
});

Deno.test("OAuth refuses a resource with userinfo naming this server's host (issue 23, case 15)", async () => {
  const world = await oauthWorld();
  try {
    const reg = await registerClient(world.as);
    const host = new URL(world.server.origin).host;
    for (const resource of [`http://x@${host}/mcp`, `http://@${host}/mcp`]) {
      const asked = await authorizationUrl(world.as, reg.client, { resource });
      const res = await fetch(asked.url, { redirect: "manual" });
      await res.body?.cancel();
      const back = new URL(res.headers.get("location")!).searchParams;
      assert.equal(back.get("error"), "invalid_target", resource);
    }
    const request = await authorizationUrl(world.as, reg.client);
    const callback = await consentTo(world.as, reg.client, request);
    assert.equal(
      await tokenError(
        exchange(world.as, reg, callback, request, { resource: `http://x@${host}/mcp` }),
      ),
      "invalid_target",
    );
  } finally {
    await world.close();
  }
});

Deno.test("OAuth consent: a wrong owner secret is refused, and tries are limited per client and per address", async () => {
  const world = await oauthWorld({ OAUTH_MAX_FAILED_ATTEMPTS: "3", TRUST_PROXY: "on" });
  try {
    const reg = await registerClient(world.as, { name: "Guessing App" });
    const request = await authorizationUrl(world.as, reg.client);
    const form = await openConsent(request.url);
    const submit = (secret: string, address: string) =>
      fetch(new URL("/authorize", request.url), {
        method: "POST",
        redirect: "manual",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          cookie: form.cookie,
          "x-forwarded-for": address,
        },
        body: new URLSearchParams({ csrf: form.csrf, secret, decision: "approve" }),
      });
    const first = await submit("wrong", "203.0.113.1");
    assert.equal(first.status, 403);
    assert.equal(first.headers.get("location"), null);
    assert.match(await first.text(), /not the owner secret/);
    // Two more wrong tries from other addresses use up this client's three.
    for (const address of ["203.0.113.2", "203.0.113.3"]) {
      await (await submit("x", address)).body?.cancel();
    }
    const blocked = await submit(OWNER_SECRET, "203.0.113.9");
    assert.equal(blocked.status, 429);
    assert.match(await blocked.text(), /OAUTH_MAX_FAILED_ATTEMPTS/);

    // The address 203.0.113.1 failed once; two failures on another client use up its three.
    const other = await registerClient(world.as, { name: "Other App" });
    const otherRequest = await authorizationUrl(world.as, other.client);
    const otherForm = await openConsent(otherRequest.url);
    const submitOther = (secret: string) =>
      fetch(new URL("/authorize", otherRequest.url), {
        method: "POST",
        redirect: "manual",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          cookie: otherForm.cookie,
          "x-forwarded-for": "203.0.113.1",
        },
        body: new URLSearchParams({ csrf: otherForm.csrf, secret, decision: "approve" }),
      });
    assert.equal((await submitOther("x")).status, 403);
    const exhausted = await submitOther("x");
    await exhausted.body?.cancel();
    assert.equal(exhausted.status, 429);
    const stillBlocked = await submitOther(OWNER_SECRET);
    await stillBlocked.body?.cancel();
    assert.equal(stillBlocked.status, 429);
  } finally {
    await world.close();
  }
});

Deno.test("OAuth consent refuses a form without its CSRF token, or with another browser's", async () => {
  const world = await oauthWorld();
  try {
    const reg = await registerClient(world.as);
    const request = await authorizationUrl(world.as, reg.client);
    const form = await openConsent(request.url);
    const missing = await submitConsent(request.url, form, {
      secret: OWNER_SECRET,
      decision: "approve",
    });
    assert.equal(missing.status, 403);
    assert.equal(missing.headers.get("location"), null);
    assert.match(await missing.text(), /no CSRF token/);
    const foreign = await submitConsent(
      request.url,
      form,
      { csrf: form.csrf, secret: OWNER_SECRET, decision: "approve" },
      "oauth_csrf=someone-else",
    );
    assert.equal(foreign.status, 403);
    await foreign.body?.cancel();
    // The real form still works afterwards.
    const ok = await submitConsent(request.url, form, {
      csrf: form.csrf,
      secret: OWNER_SECRET,
      decision: "approve",
    });
    await ok.body?.cancel();
    assert.equal(ok.status, 303);
    assert.ok(new URL(ok.headers.get("location")!).searchParams.get("code"));
  } finally {
    await world.close();
  }
});

Deno.test("OAuth revoked client: its tokens stop working and it can neither refresh nor sign in", async () => {
  const world = await oauthWorld();
  try {
    const signed = await signedIn(world, { name: "Soon Revoked" });
    assert.equal(await mcpStatus(world.server.origin, signed.tokens.access_token), 200);
    assert.equal(await deleteClient(world.server.kv, signed.client.client_id), true);
    const challenge = await challengeOf(world.server.origin, "/mcp", signed.tokens.access_token);
    assert.equal(challenge.parameters.error, "invalid_token");
    assert.equal(
      await tokenError(
        o.refreshTokenGrantRequest(
          world.as,
          signed.client,
          signed.auth,
          signed.tokens.refresh_token!,
          INSECURE,
        ),
      ),
      "invalid_client",
    );
    const request = await authorizationUrl(world.as, signed.client);
    const page = await fetch(request.url, { redirect: "manual" });
    assert.equal(page.status, 400);
    assert.match(await page.text(), /not registered here/);
  } finally {
    await world.close();
  }
});
