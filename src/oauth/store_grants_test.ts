import assert from "node:assert/strict";
import { OAuthError } from "./errors.ts";
import { findAccess, findTokenOwner, revokeGrant, rotateRefreshToken } from "./store_grants.ts";
import { clientKey, type ClientRecord } from "./store_keys.ts";
import { dump, issued, keysUnder, LIFE, T0, withKv } from "../../tests/support/oauth_store.ts";

Deno.test("a grant stores hashes only, with its index entry", async () => {
  await withKv(async (kv) => {
    const { client, tokens } = await issued(kv);
    const all = await dump(kv);
    assert.ok(!all.includes(tokens.accessToken) && !all.includes(tokens.refreshToken));
    assert.deepEqual(await keysUnder(kv, ["oauth_client_grant", client.id]), [
      JSON.stringify(["oauth_client_grant", client.id, tokens.grantId]),
    ]);
    const access = await findAccess(kv, tokens.accessToken, T0);
    assert.deepEqual(access && { ...access }, {
      grantId: tokens.grantId,
      clientId: client.id,
      clientName: "Claude",
      resource: "https://handoff.example/mcp",
      expiresAt: T0 + LIFE.accessTtlMs,
    });
    assert.equal(await findAccess(kv, tokens.accessToken, T0 + LIFE.accessTtlMs), undefined);
  });
});

Deno.test("rotateRefreshToken() rotates; reusing the old one revokes the grant", async () => {
  await withKv(async (kv) => {
    const { client, tokens } = await issued(kv);
    const next = await rotateRefreshToken(kv, tokens.refreshToken, client.id, LIFE, T0 + 1000);
    assert.equal(next.grantId, tokens.grantId);
    assert.equal(await findAccess(kv, tokens.accessToken, T0), undefined, "old access retired");
    assert.ok(await findAccess(kv, next.accessToken, T0 + 1000));
    const used = (await kv.get<ClientRecord>(clientKey(client.id))).value?.lastUsedAt;
    assert.equal(used, new Date(T0 + 1000).toISOString(), "the client is marked used again");
    await assert.rejects(
      rotateRefreshToken(kv, tokens.refreshToken, client.id, LIFE, T0 + 2000),
      (e) => e instanceof OAuthError && /already used/.test(e.message),
    );
    assert.equal(await findAccess(kv, next.accessToken, T0 + 2000), undefined);
    await assert.rejects(
      rotateRefreshToken(kv, next.refreshToken, client.id, LIFE, T0 + 3000),
      (e) => e instanceof OAuthError && e.code === "invalid_grant",
    );
    assert.deepEqual(await keysUnder(kv, ["oauth_grant"]), []);
    assert.deepEqual(await keysUnder(kv, ["oauth_client_grant"]), []);
  });
});

Deno.test("rotateRefreshToken() refuses another client's refresh token and an expired one", async () => {
  await withKv(async (kv) => {
    const { client, tokens } = await issued(kv);
    const refused = (e: unknown) => e instanceof OAuthError && e.code === "invalid_grant";
    await assert.rejects(rotateRefreshToken(kv, tokens.refreshToken, "someone", LIFE, T0), refused);
    await assert.rejects(
      rotateRefreshToken(kv, tokens.refreshToken, client.id, LIFE, T0 + LIFE.refreshTtlMs),
      refused,
    );
  });
});

Deno.test("revokeGrant() deletes the grant, both tokens and the index entry in one go", async () => {
  await withKv(async (kv) => {
    const { tokens } = await issued(kv);
    assert.deepEqual(await findTokenOwner(kv, tokens.refreshToken), {
      grantId: tokens.grantId,
      clientId: "client_Claude",
    });
    assert.equal(await revokeGrant(kv, tokens.grantId), true);
    assert.equal(await revokeGrant(kv, tokens.grantId), false);
    for (const prefix of ["oauth_grant", "oauth_access", "oauth_refresh", "oauth_client_grant"]) {
      assert.deepEqual(await keysUnder(kv, [prefix]), [], prefix);
    }
  });
});
