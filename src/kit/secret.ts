/**
 * Comparing presented secrets (tokens, approval codes, view keys, client secrets) with configured
 * or stored ones in constant time: both sides are hashed with SHA-256 and every byte is compared,
 * so timing tells neither where a guess differs nor its length.
 */

import { createHash } from "node:crypto";

/**
 * Configured secrets, hashed once (at start), each with what it proves. A presented token is
 * hashed once per request, synchronously, and compared with every secret's hash in constant
 * time: timing tells neither where a guess differs, nor its length, nor which secret was near.
 */
export class SecretSet<T> {
  readonly #entries: { digest: Uint8Array; value: T }[];

  constructor(secrets: Iterable<readonly [secret: string, value: T]>) {
    this.#entries = [...secrets].map(([secret, value]) => ({ digest: sha256(secret), value }));
  }

  /** What the first secret equal to `presented` proves, or `undefined`. */
  match(presented: string | null): T | undefined {
    if (presented === null) return undefined;
    const digest = sha256(presented);
    let found: T | undefined;
    for (const entry of this.#entries) {
      if (sameDigest(digest, entry.digest) && found === undefined) found = entry.value;
    }
    return found;
  }
}

/** Compares a presented secret with one secret in constant time (see `SecretSet` for many). */
export function secretMatches(presented: string | null, secret: string): boolean {
  return presented !== null && sameDigest(sha256(presented), sha256(secret));
}

/** The SHA-256 digest of `text`'s UTF-8 bytes. */
export function sha256(text: string): Uint8Array {
  return createHash("sha256").update(text).digest();
}

function sameDigest(a: Uint8Array, b: Uint8Array): boolean {
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}
