/**
 * Sign-ins waiting for the owner, as the owner console lists and approves them: the same
 * approval as the consent page's, ending in the same redirect back to the app with a code.
 */

import { issuerOf } from "./metadata.ts";
import type { OAuthSettings } from "./settings.ts";
import { getClient } from "./store_clients.ts";
import { approveConsentById, listConsents } from "./store_codes.ts";

/** A sign-in waiting for the owner. */
export interface PendingSignIn {
  /** The consent's id (the hash of its CSRF token). */
  id: string;
  clientId: string;
  clientName: string;
  redirectHost: string;
  expiresAt: number;
}

/** The sign-ins waiting for the owner whose app is still registered, oldest first. */
export async function pendingSignIns(kv: Deno.Kv, now: number): Promise<PendingSignIn[]> {
  const out: PendingSignIn[] = [];
  for (const { id, consent } of await listConsents(kv, now)) {
    const client = await getClient(kv, consent.clientId, now);
    if (client === undefined) continue;
    out.push({
      id,
      clientId: client.id,
      clientName: client.name,
      redirectHost: new URL(consent.redirectUri).host,
      expiresAt: consent.expiresAt,
    });
  }
  return out;
}

/**
 * Approves the sign-in `id` and returns where to send the browser: the app's redirect URI with
 * the code, its `state` and `iss`, as the consent page would. `undefined` when it is gone.
 */
export async function approvePendingSignIn(
  kv: Deno.Kv,
  settings: OAuthSettings,
  id: string,
  origin: string,
  now: number,
): Promise<string | undefined> {
  const approved = await approveConsentById(kv, id, settings.codeTtlMs, now);
  if (approved === undefined) return undefined;
  const target = new URL(approved.consent.redirectUri);
  target.searchParams.set("code", approved.code);
  if (approved.consent.state !== undefined) {
    target.searchParams.set("state", approved.consent.state);
  }
  target.searchParams.set("iss", issuerOf(origin));
  return target.href;
}
