import assert from "node:assert/strict";
import { sha256 } from "./crypto.ts";
import { OAuthError } from "./errors.ts";
import { approveConsent, getConsent, redeemCode } from "./store_codes.ts";
import { findAccess } from "./store_grants.ts";
import { clientKey, type ClientRecord, codeKey, type CodeRecord } from "./store_keys.ts";
import {
  approvedCode,
  dump,
  keysUnder,
  LIFE,
  makeClient,
  redemption,
  requestConsent,
  T0,
  withKv,
} from "../../tests/support/oauth_store.ts";

Deno.test("approveConsent() consumes the consent, approves the client and stores only the code's hash", async () => {
  await withKv(async (kv) => {
    const client = await makeClient(kv);
    const csrf = await requestConsent(kv, client, { state: "s1" });
    assert.ok(await getConsent(kv, csrf, T0));
    assert.equal(await getConsent(kv, csrf, T0 + 600_000), undefined, "expired by the clock");
    const approved = await approveConsent(kv, csrf, LIFE.codeTtlMs, T0);
    assert.equal(approved?.consent.state, "s1");
    assert.equal(await approveConsent(kv, csrf, LIFE.codeTtlMs, T0), undefined, "answered once");
    assert.deepEqual(await keysUnder(kv, ["oauth_consent"]), []);
    const code = await kv.get<CodeRecord>(codeKey(await sha256(approved!.code)));
    assert.equal(code.value?.expiresAt, T0 + LIFE.codeTtlMs);
    assert.ok((await kv.get<{ approvedAt?: string }>(clientKey(client.id))).value?.approvedAt);
    const all = await dump(kv);
    assert.ok(!all.includes(approved!.code) && !all.includes(csrf), "no raw code or CSRF token");
  });
});

Deno.test("redeemCode() issues a grant once; a second redemption revokes it", async () => {
  await withKv(async (kv) => {
    const client = await makeClient(kv);
    const code = await approvedCode(kv, client);
    const tokens = await redeemCode(kv, redemption(code, client.id), LIFE, T0);
    assert.ok(await findAccess(kv, tokens.accessToken, T0));
    const used = (await kv.get<ClientRecord>(clientKey(client.id))).value?.lastUsedAt;
    assert.equal(used, new Date(T0).toISOString(), "the client is marked used");
    assert.equal((await keysUnder(kv, ["oauth_client_grant", client.id])).length, 1);
    await assert.rejects(
      redeemCode(kv, redemption(code, client.id), LIFE, T0 + 1000),
      (e) =>
        e instanceof OAuthError && e.code === "invalid_grant" && /already used/.test(e.message),
    );
    assert.equal(await findAccess(kv, tokens.accessToken, T0), undefined);
    for (const prefix of ["oauth_grant", "oauth_access", "oauth_refresh", "oauth_client_grant"]) {
      assert.deepEqual(await keysUnder(kv, [prefix]), [], prefix);
    }
  });
});

Deno.test("redeemCode() refuses an expired code, another client's code and a wrong redirect URI", async () => {
  await withKv(async (kv) => {
    const client = await makeClient(kv);
    const other = await makeClient(kv, "Other");
    const code = await approvedCode(kv, client);
    const refused = (e: unknown) => e instanceof OAuthError && e.code === "invalid_grant";
    await assert.rejects(redeemCode(kv, redemption(code, other.id), LIFE, T0), refused);
    await assert.rejects(
      redeemCode(
        kv,
        { ...redemption(code, client.id), redirectUri: "https://evil.example/cb" },
        LIFE,
        T0,
      ),
      refused,
    );
    await assert.rejects(
      redeemCode(kv, redemption(code, client.id), LIFE, T0 + LIFE.codeTtlMs),
      (e) => refused(e) && /expired/.test((e as Error).message),
    );
    assert.deepEqual(await keysUnder(kv, ["oauth_grant"]), []);
  });
});

Deno.test("redeemCode() run twice at once issues exactly one grant", async () => {
  await withKv(async (kv) => {
    const client = await makeClient(kv);
    const code = await approvedCode(kv, client);
    const results = await Promise.allSettled([
      redeemCode(kv, redemption(code, client.id), LIFE, T0),
      redeemCode(kv, redemption(code, client.id), LIFE, T0),
    ]);
    assert.equal(results.filter((r) => r.status === "fulfilled").length, 1);
    // The loser saw the code spent and revoked the winner's grant: a leaked code burns both.
    assert.deepEqual(await keysUnder(kv, ["oauth_grant"]), []);
  });
});

Deno.test("redeemCode() asks for redirect_uri again exactly when the request had it", async () => {
  await withKv(async (kv) => {
    const client = await makeClient(kv);
    const consent = (omitted: boolean) =>
      approvedCode(kv, client, T0, omitted ? { redirectUriOmitted: true } : {});
    const without = (code: string) => ({ ...redemption(code, client.id), redirectUri: undefined });
    await assert.rejects(
      redeemCode(kv, without(await consent(false)), LIFE, T0),
      (e) => e instanceof OAuthError && /redirect_uri/.test(e.message),
    );
    assert.ok(await redeemCode(kv, without(await consent(true)), LIFE, T0));
    assert.ok(await redeemCode(kv, redemption(await consent(true), client.id), LIFE, T0));
  });
});
