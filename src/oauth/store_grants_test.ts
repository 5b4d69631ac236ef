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

Deno.test("rotateRefreshToken() rotates; reusing the old one after the grace revokes the grant", async () => {
  await withKv(async (kv) => {
    const { client, tokens } = await issued(kv);
    const next = await rotateRefreshToken(kv, tokens.refreshToken, client.id, LIFE, T0 + 1000);
    assert.ok(!(await dump(kv)).includes(next.refreshToken), "the sealed pair is not readable");
    assert.equal(next.grantId, tokens.grantId);
    assert.equal(await findAccess(kv, tokens.accessToken, T0), undefined, "old access retired");
    assert.ok(await findAccess(kv, next.accessToken, T0 + 1000));
    const used = (await kv.get<ClientRecord>(clientKey(client.id))).value?.lastUsedAt;
    assert.equal(used, new Date(T0 + 1000).toISOString(), "the client is marked used again");
    const late = T0 + 1000 + LIFE.refreshGraceMs;
    await assert.rejects(
      rotateRefreshToken(kv, tokens.refreshToken, client.id, LIFE, late),
      (e) => e instanceof OAuthError && /already used/.test(e.message),
    );
    assert.equal(await findAccess(kv, next.accessToken, late), undefined);
    await assert.rejects(
      rotateRefreshToken(kv, next.refreshToken, client.id, LIFE, late + 1000),
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

Deno.test("refresh grace: two concurrent refreshes get the same new pair, which works", async () => {
  await withKv(async (kv) => {
    const { client, tokens } = await issued(kv);
    const [a, b] = await Promise.all([
      rotateRefreshToken(kv, tokens.refreshToken, client.id, LIFE, T0 + 1000),
      rotateRefreshToken(kv, tokens.refreshToken, client.id, LIFE, T0 + 1000),
    ]);
    assert.equal(a.accessToken, b.accessToken);
    assert.equal(a.refreshToken, b.refreshToken);
    assert.ok(await findAccess(kv, a.accessToken, T0 + 1000));
    const third = await rotateRefreshToken(kv, a.refreshToken, client.id, LIFE, T0 + 2000);
    assert.ok(await findAccess(kv, third.accessToken, T0 + 2000));
  });
});

Deno.test("refresh grace: a dropped response is answered again once; the next reuse revokes", async () => {
  await withKv(async (kv) => {
    const { client, tokens } = await issued(kv);
    const lost = await rotateRefreshToken(kv, tokens.refreshToken, client.id, LIFE, T0 + 1000);
    const again = await rotateRefreshToken(kv, tokens.refreshToken, client.id, LIFE, T0 + 5000);
    assert.deepEqual(
      [again.accessToken, again.refreshToken, again.grantId],
      [lost.accessToken, lost.refreshToken, lost.grantId],
    );
    assert.equal(again.expiresIn, LIFE.accessTtlMs / 1000 - 4, "the same token's remaining life");
    await assert.rejects(
      rotateRefreshToken(kv, tokens.refreshToken, client.id, LIFE, T0 + 6000),
      (e) => e instanceof OAuthError && /already used/.test(e.message),
    );
    assert.equal(await findAccess(kv, lost.accessToken, T0 + 6000), undefined, "grant revoked");
  });
});

Deno.test("refresh grace ends once the new refresh token is used: the old one then revokes", async () => {
  await withKv(async (kv) => {
    const { client, tokens } = await issued(kv);
    const next = await rotateRefreshToken(kv, tokens.refreshToken, client.id, LIFE, T0 + 1000);
    const after = await rotateRefreshToken(kv, next.refreshToken, client.id, LIFE, T0 + 2000);
    await assert.rejects(
      rotateRefreshToken(kv, tokens.refreshToken, client.id, LIFE, T0 + 3000),
      (e) => e instanceof OAuthError && /already used/.test(e.message),
    );
    assert.equal(await findAccess(kv, after.accessToken, T0 + 3000), undefined);
    const none = { ...LIFE, refreshGraceMs: 0 };
    const fresh = await issued(kv, "Other");
    await rotateRefreshToken(kv, fresh.tokens.refreshToken, fresh.client.id, none, T0 + 1000);
    await assert.rejects(
      rotateRefreshToken(kv, fresh.tokens.refreshToken, fresh.client.id, none, T0 + 1001),
      (e) => e instanceof OAuthError && /already used/.test(e.message),
    );
  });
});
