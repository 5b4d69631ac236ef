import assert from "node:assert/strict";
import { runClients } from "./clients_cli.ts";
import { createClient, deleteClient, getClient, listClients } from "./store_clients.ts";
import { findAccess } from "./store_grants.ts";
import { issued, keysUnder, makeClient, T0, withKv } from "../../tests/support/oauth_store.ts";

Deno.test("deleteClient() removes the client and revokes every grant it holds, no one else's", async () => {
  await withKv(async (kv) => {
    const first = await issued(kv, "Claude");
    const other = await issued(kv, "ChatGPT");
    assert.equal(await deleteClient(kv, first.client.id), true);
    assert.equal(await getClient(kv, first.client.id, T0), undefined);
    assert.equal(await findAccess(kv, first.tokens.accessToken, T0), undefined);
    assert.ok(await findAccess(kv, other.tokens.accessToken, T0));
    assert.deepEqual(await keysUnder(kv, ["oauth_client_grant", first.client.id]), []);
    assert.equal(await deleteClient(kv, first.client.id), false);
  });
});

Deno.test("listClients() and deno task clients show name, approval, last use and grants; revoke removes", async () => {
  await withKv(async (kv) => {
    await issued(kv, "Claude");
    await makeClient(kv, "Never Approved");
    const listed = await listClients(kv);
    assert.deepEqual(listed.map((c) => [c.client.name, c.grants]), [["Claude", 1], [
      "Never Approved",
      0,
    ]]);
    const lines: string[] = [];
    assert.equal(await runClients(kv, [], (l) => lines.push(l)), 0);
    assert.match(lines[1], /^client_Claude\tClaude\t.*\t2026-01-01T00:00:00.000Z\t1$/);
    assert.match(lines[2], /Never Approved\t.*\tnever\tnever\t0$/);
    assert.equal(await runClients(kv, ["revoke", "client_Claude"], (l) => lines.push(l)), 0);
    assert.equal(await runClients(kv, ["revoke", "client_Claude"], (l) => lines.push(l)), 1);
    assert.equal(await runClients(kv, ["bogus"], (l) => lines.push(l)), 2);
    assert.deepEqual((await listClients(kv)).map((c) => c.client.name), ["Never Approved"]);
  });
});

Deno.test("an unapproved registration expires by its own clock (KV deletes late); an approved one stays", async () => {
  await withKv(async (kv) => {
    const day = 86_400_000;
    const base = { redirectUris: ["https://app.example/cb"], metadata: {}, grantTypes: [] };
    const fresh = {
      ...base,
      id: "client_health",
      name: "health check",
      authMethod: "none" as const,
      createdAt: new Date(T0).toISOString(),
    };
    await createClient(kv, fresh, day);
    assert.ok(await getClient(kv, fresh.id, T0 + day - 1));
    assert.equal(await getClient(kv, fresh.id, T0 + day), undefined);
    assert.deepEqual(await listClients(kv, T0 + day), []);
    const { client } = await issued(kv, "Claude");
    assert.ok(await getClient(kv, client.id, T0 + 100 * day), "approved: no expiry");
  });
});
