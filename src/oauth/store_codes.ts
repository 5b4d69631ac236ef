/**
 * The consent step and authorization codes: a pending consent keyed by its CSRF token, turned by
 * the owner's approval into a short-lived code, which is redeemed once for a grant.
 */

import { atomic, commitWithRetry } from "../kit/commit.ts";
import { listEntries, readKey } from "../kit/reads.ts";
import { retryLocked } from "../kit/retry.ts";
import { randomSecret, sha256 } from "./crypto.ts";
import { OAuthError } from "./errors.ts";
import {
  clientIsLive,
  clientKey,
  type ClientRecord,
  codeKey,
  type CodeRecord,
  consentKey,
  type ConsentRecord,
  consentsPrefix,
  remaining,
} from "./store_keys.ts";
import {
  type IssuedTokens,
  issueGrant,
  type Lifetimes,
  newGrant,
  newTokenPair,
  revokeGrant,
} from "./store_grants.ts";

/** Stores an authorization request for the consent form; returns its CSRF token. */
export async function createConsent(
  kv: Deno.Kv,
  consent: Omit<ConsentRecord, "expiresAt">,
  ttlMs: number,
  now: number,
): Promise<string> {
  const csrf = randomSecret();
  const record: ConsentRecord = { ...consent, expiresAt: now + ttlMs };
  await retryLocked(async () =>
    kv.set(consentKey(await sha256(csrf)), record, { expireIn: ttlMs })
  );
  return csrf;
}

/** The pending consent of `csrf`, or `undefined` when unknown or expired. */
export async function getConsent(
  kv: Deno.Kv,
  csrf: string,
  now: number,
): Promise<ConsentRecord | undefined> {
  const entry = await readKey<ConsentRecord>(kv, consentKey(await sha256(csrf)));
  if (entry.value === null || entry.value.expiresAt <= now) return undefined;
  return entry.value;
}

/**
 * Turns the owner's approval into a code, in one atomic: the consent is consumed (a form
 * submits once), the client is marked approved (so its registration no longer expires), and
 * the code is stored under its hash. Returns `undefined` when the consent or client is gone.
 */
export async function approveConsent(
  kv: Deno.Kv,
  csrf: string,
  codeTtlMs: number,
  now: number,
): Promise<{ code: string; consent: ConsentRecord } | undefined> {
  return await approveConsentById(kv, await sha256(csrf), codeTtlMs, now);
}

/** A consent waiting for the owner, by its id (the hash of its CSRF token, never the token). */
export interface PendingConsent {
  id: string;
  consent: ConsentRecord;
}

/** The consents still waiting for the owner, oldest first. */
export async function listConsents(kv: Deno.Kv, now: number): Promise<PendingConsent[]> {
  const out: PendingConsent[] = [];
  for await (const e of listEntries<ConsentRecord>(kv, { prefix: consentsPrefix() })) {
    if (e.value.expiresAt > now) out.push({ id: String(e.key[1]), consent: e.value });
  }
  return out.sort((a, b) => a.consent.expiresAt - b.consent.expiresAt);
}

/**
 * `approveConsent` by the consent's id: the owner approving from the console, where the form's
 * CSRF token is not at hand (the console's own sign-in and CSRF token stand for it).
 */
export async function approveConsentById(
  kv: Deno.Kv,
  csrfHash: string,
  codeTtlMs: number,
  now: number,
): Promise<{ code: string; consent: ConsentRecord } | undefined> {
  const code = randomSecret();
  const codeHash = await sha256(code);
  return await commitWithRetry(async () => {
    const consent = await readKey<ConsentRecord>(kv, consentKey(csrfHash));
    if (consent.value === null || consent.value.expiresAt <= now) return { value: undefined };
    const client = await readKey<ClientRecord>(kv, clientKey(consent.value!.clientId));
    if (client.value === null || !clientIsLive(client.value, now)) return { value: undefined };
    const { clientId, redirectUri, redirectUriOmitted, challenge, resource, scope } = consent.value;
    const record: CodeRecord = {
      clientId,
      redirectUri,
      ...(redirectUriOmitted ? { redirectUriOmitted } : {}),
      challenge,
      resource,
      ...(scope === undefined ? {} : { scope }),
      expiresAt: now + codeTtlMs,
    };
    const op = atomic(kv).check(consent, client)
      .delete(consent.key)
      .set(clientKey(clientId), {
        ...client.value,
        approvedAt: client.value.approvedAt ?? new Date(now).toISOString(),
      })
      .set(codeKey(codeHash), record, { expireIn: codeTtlMs });
    return { op, value: { code, consent: consent.value } };
  });
}

/** What the token request presents with a code. */
export interface CodeRedemption {
  code: string;
  clientId: string;
  /** The token request's `redirect_uri`, if it sent one. */
  redirectUri: string | undefined;
  /** Checks PKCE and anything else about the stored code; throws an `OAuthError`. */
  verify(record: CodeRecord): Promise<void>;
}

/**
 * Redeems a code for a new grant, in one atomic that also marks the code spent. The spent mark
 * is kept past the code's life, so a second redemption is recognised and revokes the grant the
 * first one produced (the code leaked; RFC 6749 §4.1.2).
 */
export async function redeemCode(
  kv: Deno.Kv,
  redemption: CodeRedemption,
  life: Lifetimes,
  now: number,
): Promise<IssuedTokens> {
  const hash = await sha256(redemption.code);
  const outcome = await commitWithRetry<IssuedTokens | { reused: string }>(async () => {
    const entry = await readKey<CodeRecord>(kv, codeKey(hash));
    const record = entry.value;
    if (record === null || record.clientId !== redemption.clientId) {
      throw new OAuthError("invalid_grant", "The authorization code is unknown or expired");
    }
    if (record.usedBy !== undefined) return { value: { reused: record.usedBy } };
    if (record.expiresAt <= now) {
      throw new OAuthError("invalid_grant", "The authorization code has expired; sign in again");
    }
    const presented = redemption.redirectUri;
    // OAuth 2.1 §4.1.3: redirect_uri must be sent again, identical, if the request had it.
    if (
      presented === undefined ? !record.redirectUriOmitted : presented !== record.redirectUri
    ) {
      throw new OAuthError(
        "invalid_grant",
        "redirect_uri does not match the one the code was issued for",
      );
    }
    await redemption.verify(record);
    const client = await readKey<ClientRecord>(kv, clientKey(record.clientId));
    if (client.value === null) {
      throw new OAuthError("invalid_client", "The client was revoked", 401);
    }
    const pair = await newTokenPair();
    const grant = newGrant(client.value, pair, record.resource, record.scope, life, now);
    const op = atomic(kv).check(entry, client)
      .set(codeKey(hash), { ...record, usedBy: grant.id }, {
        expireIn: remaining(record.expiresAt, now) + life.codeTtlMs,
      });
    return { op, value: issueGrant(op, grant, pair, client.value, life, now) };
  });
  if ("reused" in outcome) {
    await revokeGrant(kv, outcome.reused);
    throw new OAuthError(
      "invalid_grant",
      "The authorization code was already used; the tokens issued for it are revoked",
    );
  }
  return outcome;
}
