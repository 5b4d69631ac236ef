/**
 * Console sign-ins. The cookie holds a random token; KV holds only its SHA-256, with an expiry,
 * and a binding to the owner secret it was signed in with, so a new secret ends every session.
 */

import { atomic, commitWithRetry } from "../kit/commit.ts";
import { readKey } from "../kit/reads.ts";
import { retryLocked } from "../kit/retry.ts";
import { secretMatches } from "../kit/secret.ts";
import { randomSecret, sha256 } from "../oauth/crypto.ts";

/** A stored session: never the token itself. */
interface SessionRecord {
  /** SHA-256 of the owner secret and the token together: the secret in force at sign-in. */
  bound: string;
  createdAt: number;
  expiresAt: number;
}

/** Key of a session, by the hash of its token. */
function sessionKey(tokenHash: string): Deno.KvKey {
  return ["console_session", tokenHash];
}

function binding(secret: string, token: string): Promise<string> {
  return sha256(`console session\n${secret}\n${token}`);
}

/** The CSRF token of a session: derived from its token, so it is never stored. */
export function csrfOf(token: string): Promise<string> {
  return sha256(`console csrf\n${token}`);
}

/** Starts a session for whoever proved `secret`; returns the token for the cookie. */
export async function createSession(
  kv: Deno.Kv,
  secret: string,
  lifeMs: number,
  now: number,
): Promise<string> {
  const token = randomSecret();
  const record: SessionRecord = {
    bound: await binding(secret, token),
    createdAt: now,
    expiresAt: now + lifeMs,
  };
  const key = sessionKey(await sha256(token));
  await commitWithRetry(() =>
    Promise.resolve({
      op: atomic(kv).check({ key, versionstamp: null }).set(key, record, { expireIn: lifeMs }),
      value: undefined,
    })
  );
  return token;
}

/**
 * True when `token` is a live session signed in with `secret`. A session of another secret
 * (the owner rotated it) is deleted on sight; an expired one is refused even before KV drops it.
 */
export async function sessionIsLive(
  kv: Deno.Kv,
  token: string,
  secret: string,
  now: number,
): Promise<boolean> {
  const key = sessionKey(await sha256(token));
  const entry = await readKey<SessionRecord>(kv, key);
  if (entry.value === null || entry.value.expiresAt <= now) return false;
  if (!secretMatches(await binding(secret, token), entry.value.bound)) {
    await endSession(kv, token);
    return false;
  }
  return true;
}

/** Ends the session of `token` (signing out); ending one already gone is fine. */
export async function endSession(kv: Deno.Kv, token: string): Promise<void> {
  const key = sessionKey(await sha256(token));
  await retryLocked(() => kv.delete(key));
}
