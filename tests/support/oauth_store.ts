/** OAuth store fixtures: a registered client and a grant issued through consent and code. */

import { sha256 } from "../../src/oauth/crypto.ts";
import { createClient } from "../../src/oauth/store_clients.ts";
import {
  approveConsent,
  type CodeRedemption,
  createConsent,
  redeemCode,
} from "../../src/oauth/store_codes.ts";
import type { IssuedTokens, Lifetimes } from "../../src/oauth/store_grants.ts";
import type { ClientRecord, ConsentRecord } from "../../src/oauth/store_keys.ts";

export { withKv } from "./kv.ts";

/** Lifetimes of the store tests: an hour, a day, a minute, a refresh grace of a minute. */
export const LIFE: Lifetimes = {
  accessTtlMs: 3_600_000,
  refreshTtlMs: 86_400_000,
  codeTtlMs: 60_000,
  refreshGraceMs: 60_000,
};
/** A fixed start time. */
export const T0 = Date.parse("2026-01-01T00:00:00Z");
/** The PKCE verifier of every consent here; its SHA-256 is the stored challenge. */
const VERIFIER = "v".repeat(43);

/** Registers a public client named `name`. */
export async function makeClient(kv: Deno.Kv, name = "Claude", id = `client_${name}`) {
  const client: ClientRecord = {
    id,
    name,
    redirectUris: ["https://app.example/cb"],
    authMethod: "none",
    grantTypes: ["authorization_code", "refresh_token"],
    metadata: {},
    createdAt: new Date(T0).toISOString(),
  };
  // Unapproved for years: the fixtures run at T0, and the CLI lists by the real clock.
  await createClient(kv, client, 10 * 365 * 86_400_000);
  return client;
}

/** Stores a consent request of `client` (with `extra` fields); returns its CSRF token. */
export async function requestConsent(
  kv: Deno.Kv,
  client: ClientRecord,
  extra: Partial<Omit<ConsentRecord, "expiresAt">> = {},
  now = T0,
): Promise<string> {
  return await createConsent(
    kv,
    {
      clientId: client.id,
      redirectUri: client.redirectUris[0],
      challenge: await sha256(VERIFIER),
      resource: "https://handoff.example/mcp",
      ...extra,
    },
    600_000,
    now,
  );
}

/** Runs consent → approval → code for `client`; returns the code. */
export async function approvedCode(
  kv: Deno.Kv,
  client: ClientRecord,
  now = T0,
  extra: Partial<Omit<ConsentRecord, "expiresAt">> = {},
): Promise<string> {
  const csrf = await requestConsent(kv, client, extra, now);
  const approved = await approveConsent(kv, csrf, LIFE.codeTtlMs, now);
  if (!approved) throw new Error("consent was not approved");
  return approved.code;
}

/** A redemption of `code` by the client `clientId` at its registered redirect URI. */
export function redemption(code: string, clientId: string): CodeRedemption {
  return { code, clientId, redirectUri: "https://app.example/cb", verify: () => Promise.resolve() };
}

/** A client holding a fresh grant. */
export async function issued(
  kv: Deno.Kv,
  name = "Claude",
): Promise<{ client: ClientRecord; tokens: IssuedTokens }> {
  const client = await makeClient(kv, name);
  const code = await approvedCode(kv, client);
  const tokens = await redeemCode(kv, redemption(code, client.id), LIFE, T0);
  return { client, tokens };
}

/** Every key and value in `kv`, as JSON lines (to search for leaked secrets). */
export async function dump(kv: Deno.Kv): Promise<string> {
  const lines: string[] = [];
  for await (const e of kv.list({ prefix: [] })) lines.push(JSON.stringify([e.key, e.value]));
  return lines.join("\n");
}

/** Keys under `prefix`, as JSON. */
export async function keysUnder(kv: Deno.Kv, prefix: Deno.KvKey): Promise<string[]> {
  const out: string[] = [];
  for await (const e of kv.list({ prefix })) out.push(JSON.stringify(e.key));
  return out;
}
