/**
 * Comparing presented secrets (tokens, approval codes, view keys, client secrets) with configured
 * or stored ones in constant time: both sides are hashed (SHA-256) and the digests compared with
 * `timingSafeEqual`, so timing tells neither where a guess differs nor how long it is.
 */

import { createHash, timingSafeEqual } from "node:crypto";

/**
 * Configured secrets, each with what it proves. A presented token is compared with every secret
 * in constant time: timing tells neither where a guess differs, nor its length, nor which
 * secret was near.
 */
export class SecretSet<T> {
  /** Each secret's digest, taken once here: a request costs one digest of what it presents. */
  readonly #entries: { digest: Uint8Array; value: T }[];

  constructor(secrets: Iterable<readonly [secret: string, value: T]>) {
    this.#entries = [...secrets].map(([secret, value]) => ({ digest: digest(secret), value }));
  }

  /** What the first secret equal to `presented` proves, or `undefined`. */
  match(presented: string | null): T | undefined {
    if (presented === null) return undefined;
    const presentedDigest = digest(presented);
    let found: T | undefined;
    for (const entry of this.#entries) {
      if (timingSafeEqual(presentedDigest, entry.digest) && found === undefined) {
        found = entry.value;
      }
    }
    return found;
  }
}

/** Compares a presented secret with one secret in constant time (see `SecretSet` for many). */
export function secretMatches(presented: string | null, secret: string): boolean {
  return presented !== null && sameSecret(presented, secret);
}

/** True when `presented` equals `secret`, in a time that depends on neither. */
function sameSecret(presented: string, secret: string): boolean {
  return timingSafeEqual(digest(presented), digest(secret));
}

function digest(text: string): Uint8Array {
  return createHash("sha256").update(text).digest();
}
