/** WebCrypto for OAuth: random secrets, their stored hashes, PKCE and constant-time comparison. */

import { randomToken } from "../kit/kv.ts";
import { secretMatches } from "../kit/secret.ts";

/** Bytes of randomness in every token, code and client secret (256 bits). */
export const SECRET_BYTES = 32;

/** Base64url without padding, as OAuth and PKCE write bytes. */
export function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

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
