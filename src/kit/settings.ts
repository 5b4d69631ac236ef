/** Server settings kept in KV, such as the locally generated auth token. */

import { atomic, commitWithRetry } from "./commit.ts";
import { randomToken } from "./ids.ts";
import { readKey } from "./reads.ts";

/** Key of the token generated for a local server without `AUTH_TOKEN`. */
export function authTokenKey(): Deno.KvKey {
  return ["settings", "auth_token"];
}

/** Bytes of randomness in a generated token (256 bits). */
export const GENERATED_TOKEN_BYTES = 32;

/**
 * The stored token, or a new random one stored so it survives restarts. Two processes starting
 * at once on one KV file agree on the same token: the create is a create-if-absent.
 */
export async function ensureAuthToken(kv: Deno.Kv): Promise<string> {
  return await commitWithRetry(async () => {
    const current = await readKey<string>(kv, authTokenKey());
    if (current.value !== null) return { value: current.value };
    const token = randomToken(GENERATED_TOKEN_BYTES);
    const op = atomic(kv).check(current).set(authTokenKey(), token);
    return { op, value: token };
  });
}

/**
 * Replaces the stored token with a new random one in one atomic (checked against the value it
 * replaces, retried on conflict) and returns it. Servers read the token at start: restart them.
 */
export async function rotateAuthToken(kv: Deno.Kv): Promise<string> {
  return await commitWithRetry(async () => {
    const current = await readKey<string>(kv, authTokenKey());
    const token = randomToken(GENERATED_TOKEN_BYTES);
    const op = atomic(kv).check(current).set(authTokenKey(), token);
    return { op, value: token };
  });
}
