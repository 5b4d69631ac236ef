/**
 * Grants and their tokens: issue a token family, rotate its refresh token, look up an access
 * token, revoke a grant. A grant, its current access and refresh token and its index entry are
 * always written and deleted in one atomic.
 */

import { atomic, commitWithRetry } from "../kit/commit.ts";
import { ulid } from "../kit/ids.ts";
import { readKey, readKeys } from "../kit/reads.ts";
import { randomSecret, sealFor, sha256, unsealWith } from "./crypto.ts";
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
  type Successor,
} from "./store_keys.ts";

/** How long what a grant issues lives. */
export interface Lifetimes {
  accessTtlMs: number;
  refreshTtlMs: number;
  codeTtlMs: number;
  /** How long a rotated refresh token may be answered once more (0: never). */
  refreshGraceMs: number;
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
 * token is not the client it was issued to — except within the grace below.
 *
 * The refresh grace, and why it is safe. A client whose refresh response was lost (a timeout, a
 * dropped connection), or that refreshed twice at once, presents the old token again. Within
 * `refreshGraceMs` (capped at the access token's life), and only while the new refresh token is
 * still the grant's current one and has never been used, that second use is answered once with
 * the same new pair instead of revoking the grant:
 * - KV never holds a token: the pair is sealed (AES-GCM) with a key derived (HKDF) from the old
 *   refresh token, bound to the new refresh token's hash. Only whoever presents the old token can
 *   read it, and that holder could have had the same pair by being first, so the repeat reveals
 *   nothing the rotation did not already hand to a holder of that token.
 * - The repeat is one atomic checked against the old record, the grant and the new refresh
 *   record, and it marks the successor `repeated`: two repeats racing cannot both pass, and a
 *   third use of the old token revokes the grant as before.
 * - Once the new refresh token is used, its record is rotated and the grant moves on, so the
 *   checks fail and the old token's reuse revokes the grant: theft is still detected as soon as
 *   both holders have refreshed.
 * - Revoking the grant (or the client) deletes the grant, so nothing can be repeated after it.
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
    if (record.rotated) {
      const repeat = await repeatAnswer(
        kv,
        entry as Deno.KvEntry<RefreshRecord>,
        refreshToken,
        now,
      );
      return repeat ?? { value: { reused: record.grantId } };
    }
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
    const graceMs = Math.min(life.refreshGraceMs, life.accessTtlMs);
    const rotated: RefreshRecord = { ...record, rotated: true };
    if (graceMs > 0) {
      rotated.successor = {
        refreshHash: pair.refreshHash,
        sealed: await sealFor(
          refreshToken,
          JSON.stringify([pair.accessToken, pair.refreshToken]),
          pair.refreshHash,
        ),
        accessExpiresAt: now + life.accessTtlMs,
        until: now + graceMs,
      };
    }
    const op = atomic(kv).check(entry, grant, client)
      .set(refreshKey(hash), rotated, { expireIn: remaining(record.expiresAt, now) })
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

/**
 * The second answer of a rotated refresh token within its grace (see `rotateRefreshToken`), or
 * `undefined` when the grace does not apply and the reuse must revoke the grant.
 */
async function repeatAnswer(
  kv: Deno.Kv,
  entry: Deno.KvEntry<RefreshRecord>,
  refreshToken: string,
  now: number,
): Promise<{ op: Deno.AtomicOperation; value: IssuedTokens } | undefined> {
  const s: Successor | undefined = entry.value.successor;
  if (s === undefined || s.repeated || s.until <= now) return undefined;
  const [grant, next] = await readKeys<[GrantRecord, RefreshRecord]>(kv, [
    grantKey(entry.value.grantId),
    refreshKey(s.refreshHash),
  ]);
  if (grant.value?.refreshHash !== s.refreshHash || next.value === null || next.value.rotated) {
    return undefined;
  }
  const opened = await unsealWith(refreshToken, s.sealed, s.refreshHash);
  if (opened === undefined) return undefined;
  const [accessToken, newRefresh] = JSON.parse(opened) as [string, string];
  const op = atomic(kv).check(entry, grant, next)
    .set(entry.key, { ...entry.value, successor: { ...s, repeated: true } }, {
      expireIn: remaining(entry.value.expiresAt, now),
    });
  return {
    op,
    value: {
      grantId: grant.value.id,
      accessToken,
      refreshToken: newRefresh,
      expiresIn: Math.max(1, Math.floor((s.accessExpiresAt - now) / 1000)),
      scope: grant.value.scope,
    },
  };
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
