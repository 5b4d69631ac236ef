/**
 * Grants and their tokens: issue a token family, rotate its refresh token, look up an access
 * token, revoke a grant. A grant, its current access and refresh token and its index entry are
 * always written and deleted in one atomic.
 */

import { atomic } from "../kit/group_commit.ts";
import { commitWithRetry, readKey, readKeys, ulid } from "../kit/kv.ts";
import { randomSecret, sha256 } from "./crypto.ts";
import { OAuthError } from "./errors.ts";
import {
  accessKey,
  type AccessRecord,
  clientGrantKey,
  clientKey,
  type ClientRecord,
  grantKey,
  type GrantRecord,
  refreshKey,
  type RefreshRecord,
  remaining,
} from "./store_keys.ts";

/** How long what a grant issues lives. */
export interface Lifetimes {
  accessTtlMs: number;
  refreshTtlMs: number;
  codeTtlMs: number;
}

/** What the token endpoint hands back. */
export interface IssuedTokens {
  grantId: string;
  accessToken: string;
  refreshToken: string;
  /** Seconds the access token lives. */
  expiresIn: number;
  scope?: string;
}

/** Fresh token pair and their hashes. */
export async function newTokenPair() {
  const accessToken = randomSecret();
  const refreshToken = randomSecret();
  const [accessHash, refreshHash] = await Promise.all([sha256(accessToken), sha256(refreshToken)]);
  return { accessToken, refreshToken, accessHash, refreshHash };
}

/**
 * Adds a grant's record and current tokens to `op`, marks its client used, and returns what the
 * token endpoint hands back.
 */
export function issueGrant(
  op: Deno.AtomicOperation,
  grant: GrantRecord,
  pair: { accessToken: string; refreshToken: string },
  client: ClientRecord,
  life: Lifetimes,
  now: number,
): IssuedTokens {
  const access: AccessRecord = {
    grantId: grant.id,
    clientId: client.id,
    clientName: client.name,
    resource: grant.resource,
    expiresAt: now + life.accessTtlMs,
  };
  const refresh: RefreshRecord = {
    grantId: grant.id,
    clientId: client.id,
    expiresAt: grant.expiresAt,
  };
  const expireIn = remaining(grant.expiresAt, now);
  op
    .set(grantKey(grant.id), grant, { expireIn })
    .set(clientGrantKey(client.id, grant.id), grant.id, { expireIn })
    .set(accessKey(grant.accessHash), access, { expireIn: life.accessTtlMs })
    .set(refreshKey(grant.refreshHash), refresh, { expireIn })
    .set(clientKey(client.id), { ...client, lastUsedAt: new Date(now).toISOString() });
  return {
    grantId: grant.id,
    accessToken: pair.accessToken,
    refreshToken: pair.refreshToken,
    expiresIn: Math.floor(life.accessTtlMs / 1000),
    scope: grant.scope,
  };
}

/** A new grant record for `client`, valid for the refresh lifetime. */
export function newGrant(
  client: ClientRecord,
  hashes: { accessHash: string; refreshHash: string },
  resource: string,
  scope: string | undefined,
  life: Lifetimes,
  now: number,
): GrantRecord {
  return {
    id: ulid(now),
    clientId: client.id,
    resource,
    ...(scope === undefined ? {} : { scope }),
    createdAt: new Date(now).toISOString(),
    expiresAt: now + life.refreshTtlMs,
    // Only the hashes: `hashes` may be a whole token pair, whose raw tokens must never be stored.
    accessHash: hashes.accessHash,
    refreshHash: hashes.refreshHash,
  };
}

/**
 * Exchanges a refresh token for a new pair (rotation). The old one is kept, marked rotated, so a
 * second use is recognised: that revokes the whole grant, because one of the two users of the
 * token is not the client it was issued to.
 */
export async function rotateRefreshToken(
  kv: Deno.Kv,
  refreshToken: string,
  clientId: string,
  life: Lifetimes,
  now: number,
): Promise<IssuedTokens> {
  const hash = await sha256(refreshToken);
  const outcome = await commitWithRetry<IssuedTokens | { reused: string }>(async () => {
    const entry = await readKey<RefreshRecord>(kv, refreshKey(hash));
    const record = entry.value;
    if (record === null || record.clientId !== clientId || record.expiresAt <= now) {
      throw new OAuthError("invalid_grant", "The refresh token is unknown, expired or revoked");
    }
    if (record.rotated) return { value: { reused: record.grantId } };
    const [grant, client] = await readKeys<[GrantRecord, ClientRecord]>(kv, [
      grantKey(record.grantId),
      clientKey(clientId),
    ]);
    if (grant.value === null || client.value === null) {
      throw new OAuthError("invalid_grant", "The grant of this refresh token was revoked");
    }
    const pair = await newTokenPair();
    const next: GrantRecord = {
      ...grant.value,
      expiresAt: now + life.refreshTtlMs,
      accessHash: pair.accessHash,
      refreshHash: pair.refreshHash,
    };
    const op = atomic(kv).check(entry, grant, client)
      .set(refreshKey(hash), { ...record, rotated: true }, {
        expireIn: remaining(record.expiresAt, now),
      })
      .delete(accessKey(grant.value.accessHash));
    return { op, value: issueGrant(op, next, pair, client.value, life, now) };
  });
  if ("reused" in outcome) {
    await revokeGrant(kv, outcome.reused);
    throw new OAuthError(
      "invalid_grant",
      "The refresh token was already used; its grant is revoked and the client must sign in again",
    );
  }
  return outcome;
}

/** Deletes a grant with its current tokens and index entry; false when it was already gone. */
export async function revokeGrant(kv: Deno.Kv, grantId: string): Promise<boolean> {
  return await commitWithRetry(async () => {
    const entry = await readKey<GrantRecord>(kv, grantKey(grantId));
    const grant = entry.value;
    if (grant === null) return { value: false };
    const op = atomic(kv).check(entry)
      .delete(grantKey(grantId))
      .delete(clientGrantKey(grant.clientId, grantId))
      .delete(accessKey(grant.accessHash))
      .delete(refreshKey(grant.refreshHash));
    return { op, value: true };
  });
}

/** The live access token record of `token`, or `undefined` (unknown, expired or revoked). */
export async function findAccess(
  kv: Deno.Kv,
  token: string,
  now: number,
): Promise<AccessRecord | undefined> {
  const entry = await readKey<AccessRecord>(kv, accessKey(await sha256(token)));
  if (entry.value === null || entry.value.expiresAt <= now) return undefined;
  return entry.value;
}

/** The grant and client an access or refresh token belongs to, or `undefined`. */
export async function findTokenOwner(
  kv: Deno.Kv,
  token: string,
): Promise<{ grantId: string; clientId: string } | undefined> {
  const hash = await sha256(token);
  const [access, refresh] = await readKeys<[AccessRecord, RefreshRecord]>(kv, [
    accessKey(hash),
    refreshKey(hash),
  ]);
  const found = access.value ?? refresh.value;
  return found === null ? undefined : { grantId: found.grantId, clientId: found.clientId };
}
