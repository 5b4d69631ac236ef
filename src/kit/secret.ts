/**
 * Comparing presented secrets (tokens, approval codes, view keys, client secrets) with configured
 * or stored ones in constant time: every character of the secret is compared with the guess
 * (repeated to the secret's length), and the lengths too, without stopping early, so timing
 * tells neither where a guess differs nor how long it is. The work depends on the secret's
 * length only, which is the same for every guess. (Hashing both sides first gave the same
 * guarantee at ~7 µs per request, most of it in the Node crypto layer.)
 */

import { createHash } from "node:crypto";

/**
 * Configured secrets, each with what it proves. A presented token is compared with every secret
 * in constant time: timing tells neither where a guess differs, nor its length, nor which
 * secret was near.
 */
export class SecretSet<T> {
  readonly #entries: { secret: string; value: T }[];

  constructor(secrets: Iterable<readonly [secret: string, value: T]>) {
    this.#entries = [...secrets].map(([secret, value]) => ({ secret, value }));
  }

  /** What the first secret equal to `presented` proves, or `undefined`. */
  match(presented: string | null): T | undefined {
    if (presented === null) return undefined;
    let found: T | undefined;
    for (const entry of this.#entries) {
      if (sameSecret(presented, entry.secret) && found === undefined) found = entry.value;
    }
    return found;
  }
}

/** Compares a presented secret with one secret in constant time (see `SecretSet` for many). */
export function secretMatches(presented: string | null, secret: string): boolean {
  return presented !== null && sameSecret(presented, secret);
}

/** The SHA-256 digest of `text`'s UTF-8 bytes. */
export function sha256(text: string): Uint8Array {
  return createHash("sha256").update(text).digest();
}

/** True when `presented` equals `secret`, in a time set by the secret's length alone. */
function sameSecret(presented: string, secret: string): boolean {
  const n = presented.length;
  let diff = n ^ secret.length;
  for (let i = 0; i < secret.length; i++) {
    diff |= (n === 0 ? 0xffff : presented.charCodeAt(i % n)) ^ secret.charCodeAt(i);
  }
  return diff === 0;
}
