/** WebCrypto for OAuth: random secrets, their stored hashes, PKCE and constant-time comparison. */

import { base64url } from "../kit/base64url.ts";
import { randomToken } from "../kit/ids.ts";
import { secretMatches } from "../kit/secret.ts";

/** Bytes of randomness in every token, code and client secret (256 bits). */
export const SECRET_BYTES = 32;

/** A new unguessable secret (token, code, client secret, CSRF token). */
export function randomSecret(bytes = SECRET_BYTES): string {
  return randomToken(bytes);
}

/** SHA-256 of `text`, base64url: what KV keeps instead of a token or code. */
export async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return base64url(new Uint8Array(digest));
}

/** True when `verifier` is an RFC 7636 code verifier (43–128 unreserved characters). */
export function isCodeVerifier(verifier: string): boolean {
  return /^[A-Za-z0-9._~-]{43,128}$/.test(verifier);
}

/** True when `verifier` hashes (S256) to `challenge`. */
export async function pkceMatches(verifier: string, challenge: string): Promise<boolean> {
  if (!isCodeVerifier(verifier)) return false;
  return secretMatches(await sha256(verifier), challenge);
}

const GRACE_SALT = new TextEncoder().encode("handoff-mcp refresh grace v1");

/** The AES-GCM key only the holder of `token` can derive (HKDF-SHA-256 of the token). */
async function tokenKey(token: string): Promise<CryptoKey> {
  const material = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(token),
    "HKDF",
    false,
    ["deriveKey"],
  );
  return await crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: GRACE_SALT, info: new Uint8Array() },
    material,
    { name: "AES-GCM", length: 256 },
    false,
    ["encrypt", "decrypt"],
  );
}

/**
 * Encrypts `text` so that only a holder of `token` can read it back (`unseal`): the key is
 * derived from the token, which KV never holds. `bound` (e.g. a hash it belongs with) must be
 * presented again to open it. Output: 12-byte IV, then the AES-GCM ciphertext and tag.
 */
export async function sealFor(token: string, text: string, bound: string): Promise<Uint8Array> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData: new TextEncoder().encode(bound) },
    await tokenKey(token),
    new TextEncoder().encode(text),
  );
  const out = new Uint8Array(12 + sealed.byteLength);
  out.set(iv);
  out.set(new Uint8Array(sealed), 12);
  return out;
}

/** Opens what `sealFor(token, …, bound)` sealed; `undefined` when the token or bound differ. */
export async function unsealWith(
  token: string,
  sealed: Uint8Array,
  bound: string,
): Promise<string | undefined> {
  const bytes = new Uint8Array(sealed);
  try {
    const plain = await crypto.subtle.decrypt(
      {
        name: "AES-GCM",
        iv: bytes.subarray(0, 12),
        additionalData: new TextEncoder().encode(bound),
      },
      await tokenKey(token),
      bytes.subarray(12),
    );
    return new TextDecoder().decode(plain);
  } catch {
    return undefined;
  }
}
