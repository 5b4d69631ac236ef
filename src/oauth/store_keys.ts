/**
 * The OAuth records and the one key builder per key shape. Tokens, codes and CSRF tokens are
 * never stored: their keys hold SHA-256 hashes, and every record also carries its own expiry
 * (KV's `expireIn` deletes late, so reads check `expiresAt` against the clock).
 */

/** How a client proves itself at the token endpoint. */
export type AuthMethod = "none" | "client_secret_basic" | "client_secret_post";

/** A dynamically registered client. */
export interface ClientRecord {
  id: string;
  /** The registered `client_name`, or a name made from the id when none was given. */
  name: string;
  redirectUris: string[];
  authMethod: AuthMethod;
  /** SHA-256 of the client secret of a confidential client. */
  secretHash?: string;
  grantTypes: string[];
  /** Registered metadata as accepted (after the SDK schema stripped unknown fields). */
  metadata: Record<string, unknown>;
  createdAt: string;
  /** Set when the owner first approved it; an unapproved registration expires. */
  approvedAt?: string;
  /**
   * When an unapproved registration stops counting as registered (ms since the epoch). KV's own
   * expiry deletes late, so reads check this; ignored once `approvedAt` is set.
   */
  unapprovedUntil?: number;
  /** Last code exchange or refresh. */
  lastUsedAt?: string;
  /**
   * Set for a client known by a metadata document (its `id` is the document's https URL): what
   * the owner approved (a hash of name, redirect URIs, grant types and auth method) and until
   * when the fetched document may be reused without fetching it again (ms since the epoch).
   */
  metadataDocument?: { fingerprint: string; freshUntil: number };
}

/** False for a registration the owner never approved whose time ran out. */
export function clientIsLive(client: ClientRecord, now: number): boolean {
  return client.approvedAt !== undefined || client.unapprovedUntil === undefined ||
    client.unapprovedUntil > now;
}

/** An authorization request waiting for the owner on the consent page. */
export interface ConsentRecord {
  clientId: string;
  redirectUri: string;
  /** The request left out `redirect_uri` (one was registered), so the token request may too. */
  redirectUriOmitted?: true;
  state?: string;
  challenge: string;
  resource: string;
  scope?: string;
  expiresAt: number;
}

/** An issued authorization code; `usedBy` marks it spent and names the grant it produced. */
export interface CodeRecord {
  clientId: string;
  redirectUri: string;
  redirectUriOmitted?: true;
  challenge: string;
  resource: string;
  scope?: string;
  expiresAt: number;
  usedBy?: string;
}

/** One approval of one client: the current access and refresh token of a token family. */
export interface GrantRecord {
  id: string;
  clientId: string;
  resource: string;
  scope?: string;
  createdAt: string;
  expiresAt: number;
  accessHash: string;
  refreshHash: string;
}

/** An access token, with what a request needs to know about its caller. */
export interface AccessRecord {
  grantId: string;
  clientId: string;
  clientName: string;
  resource: string;
  expiresAt: number;
}

/**
 * A refresh token; `rotated` marks one already exchanged, whose reuse revokes the grant unless
 * its `successor` may still be answered again (the refresh grace, `store_grants.ts`).
 */
export interface RefreshRecord {
  grantId: string;
  clientId: string;
  expiresAt: number;
  rotated?: true;
  successor?: Successor;
}

/** The pair a refresh token was exchanged for, kept for one repeated answer. */
export interface Successor {
  /** Hash of the new refresh token: the grace holds only while the grant still has it, unused. */
  refreshHash: string;
  /** The new access and refresh tokens, sealed with a key derived from the old refresh token. */
  sealed: Uint8Array;
  /** When the new access token expires (the repeated answer's `expires_in`). */
  accessExpiresAt: number;
  /** End of the grace: after it, reuse revokes the grant. */
  until: number;
  /** Set once the pair was handed out a second time: a third use revokes the grant. */
  repeated?: true;
}

/** A counter of attempts in the current window. */
export interface AttemptsRecord {
  count: number;
  windowEnds: number;
}

/** Key of a registered client. */
export function clientKey(clientId: string): Deno.KvKey {
  return ["oauth_client", clientId];
}

/** Key of a pending consent, by the hash of its CSRF token. */
export function consentKey(csrfHash: string): Deno.KvKey {
  return ["oauth_consent", csrfHash];
}

/** Prefix of every pending consent. */
export function consentsPrefix(): Deno.KvKey {
  return ["oauth_consent"];
}

/** Key of an authorization code, by its hash. */
export function codeKey(codeHash: string): Deno.KvKey {
  return ["oauth_code", codeHash];
}

/** Key of a grant. */
export function grantKey(grantId: string): Deno.KvKey {
  return ["oauth_grant", grantId];
}

/** Index of a client's grants (value: the grant id), so revoking a client finds them all. */
export function clientGrantKey(clientId: string, grantId: string): Deno.KvKey {
  return ["oauth_client_grant", clientId, grantId];
}

/** Prefix of one client's grant index. */
export function clientGrantsPrefix(clientId: string): Deno.KvKey {
  return ["oauth_client_grant", clientId];
}

/** Key of an access token, by its hash. */
export function accessKey(tokenHash: string): Deno.KvKey {
  return ["oauth_access", tokenHash];
}

/** Key of a refresh token, by its hash. */
export function refreshKey(tokenHash: string): Deno.KvKey {
  return ["oauth_refresh", tokenHash];
}

/**
 * Key of a counter: failed consents of a client or an address, registrations, consent forms
 * opened or metadata documents fetched for an address, or a total over every address (`"total", "owner_secret" | "register"`).
 */
export function attemptsKey(
  scope: "client" | "address" | "register" | "consent_form" | "document_fetch" | "total",
  id: string,
): Deno.KvKey {
  return ["oauth_attempts", scope, id];
}

/** Milliseconds until `expiresAt`, at least one (KV refuses zero). */
export function remaining(expiresAt: number, now: number): number {
  return Math.max(1, Math.ceil(expiresAt - now));
}
