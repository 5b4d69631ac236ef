/**
 * Sign-in by client ID metadata document (CIMD): a `client_id` that is an https URL is fetched
 * (`cimd_fetch.ts`), its JSON checked (its `client_id` is that URL, its redirect URIs and flows
 * are ones a registration could have), and kept as an ordinary client record under that URL, so
 * consent, codes, tokens, the console's list and revocation treat it like a registered client.
 * Once the owner approved it, a document that says something else (another name, other redirect
 * URIs) is refused until the owner revokes the app and approves it anew.
 */

import { AppError } from "../kit/errors.ts";
import { OAuthClientMetadataSchema } from "./sdk_auth.ts";
import { CimdError, clientIdUrl, fetchMetadataDocument } from "./cimd_fetch.ts";
import type { OAuthContext } from "./context.ts";
import { sha256 } from "./crypto.ts";
import { OAuthError } from "./errors.ts";
import { clientNameProblem } from "../kit/caller.ts";
import { checkRedirectUris, flowTypes } from "./register.ts";
import { documentFetchCounters, limitText, reserveAttempt } from "./store_attempts.ts";
import { readClientEntry, saveMetadataClient } from "./store_clients.ts";
import { clientIsLive, type ClientRecord } from "./store_keys.ts";

export { CimdError, isMetadataClientId } from "./cimd_fetch.ts";

/**
 * The client a metadata document `client_id` stands for, fetched unless a fresh copy is stored;
 * throws a `CimdError` saying why the document is refused.
 */
export async function metadataClient(
  ctx: OAuthContext,
  clientId: string,
  address: string,
): Promise<ClientRecord> {
  const url = clientIdUrl(clientId, ctx.settings);
  const now = ctx.now();
  const stored = await readClientEntry(ctx.kv, clientId);
  const known = stored.value !== null && clientIsLive(stored.value, now) ? stored.value : undefined;
  if (known?.metadataDocument && known.metadataDocument.freshUntil > now) return known;
  const window = ctx.settings.attemptWindowMs;
  const full = await reserveAttempt(
    ctx.kv,
    documentFetchCounters(ctx.settings, address),
    window,
    now,
  );
  if (full !== undefined) {
    throw new CimdError(`too many metadata documents were fetched (${limitText(full, window)})`);
  }
  const fetched = await fetchMetadataDocument(url, ctx.settings);
  const candidate = await recordOf(clientId, url, fetched.json, now + fetched.freshForMs, now);
  const saved = await saveMetadataClient(
    ctx.kv,
    candidate,
    ctx.settings.unapprovedClientTtlMs,
    now,
  );
  if (saved === "changed") {
    throw new CimdError(
      `the document at ${clientId} changed since the owner approved this app (its name, redirect URIs, grant types or auth method differ). Nothing changed here: revoke the app in the console (/console/apps) to approve the new document`,
    );
  }
  return saved;
}

/** The client record a document describes; throws a `CimdError` for anything not allowed. */
async function recordOf(
  clientId: string,
  url: URL,
  json: Record<string, unknown>,
  freshUntil: number,
  now: number,
): Promise<ClientRecord> {
  if (json.client_id !== clientId) {
    throw new CimdError(
      `the document's client_id is ${
        JSON.stringify(json.client_id ?? null)
      }, not the URL it was fetched from (${clientId})`,
    );
  }
  if ("client_secret" in json || "client_secret_expires_at" in json) {
    throw new CimdError("a metadata document may not hold a client_secret");
  }
  const method = json.token_endpoint_auth_method ?? "none";
  if (method !== "none") {
    throw new CimdError(
      `token_endpoint_auth_method must be none (a public client with PKCE), got ${
        JSON.stringify(method)
      }: a document cannot share a secret`,
    );
  }
  const parsed = OAuthClientMetadataSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new CimdError(`${issue.path.join(".") || "the document"}: ${issue.message}`);
  }
  const meta = parsed.data;
  let flows: ReturnType<typeof flowTypes>;
  try {
    checkRedirectUris(meta.redirect_uris);
    flows = flowTypes(meta);
  } catch (error) {
    if (error instanceof OAuthError || error instanceof AppError) {
      throw new CimdError(error.message);
    }
    throw new CimdError("redirect_uris must be absolute URLs");
  }
  const name = meta.client_name?.trim() || url.host;
  const problem = clientNameProblem(name, "client_name");
  if (problem) throw new CimdError(problem);
  const fingerprint = await sha256(
    JSON.stringify([name, meta.redirect_uris, flows.grantTypes, "none"]),
  );
  return {
    id: clientId,
    name,
    redirectUris: meta.redirect_uris,
    authMethod: "none",
    grantTypes: flows.grantTypes,
    metadata: meta as Record<string, unknown>,
    createdAt: new Date(now).toISOString(),
    metadataDocument: { fingerprint, freshUntil },
  };
}
