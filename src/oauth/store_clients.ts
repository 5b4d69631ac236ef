/** Registered OAuth clients: create, read, list with their grants, and revoke with everything they hold. */

import { atomic, commitWithRetry } from "../kit/commit.ts";
import { listEntries, readKey } from "../kit/reads.ts";
import { retryLocked } from "../kit/retry.ts";
import { revokeGrant } from "./store_grants.ts";
import { clientGrantsPrefix, clientIsLive, clientKey, type ClientRecord } from "./store_keys.ts";

/** Longest client id looked up (issued ids are 33 characters; a metadata document URL up to 512). */
export const CLIENT_ID_MAX_CHARS = 512;

/**
 * Stores a new client; until the owner approves it, it expires after `unapprovedTtlMs` from its
 * `createdAt` (a health check's registration that no one approves goes away by itself).
 */
export async function createClient(
  kv: Deno.Kv,
  client: ClientRecord,
  unapprovedTtlMs: number,
): Promise<void> {
  const record = { ...client, unapprovedUntil: Date.parse(client.createdAt) + unapprovedTtlMs };
  await commitWithRetry(() =>
    Promise.resolve({
      op: atomic(kv).check({ key: clientKey(client.id), versionstamp: null })
        .set(clientKey(client.id), record, { expireIn: unapprovedTtlMs }),
      value: undefined,
    })
  );
}

/** The client with `clientId`, or `undefined` (unknown, revoked, or unapproved and expired). */
export async function getClient(
  kv: Deno.Kv,
  clientId: string,
  now: number,
): Promise<ClientRecord | undefined> {
  // Ids are short; a huge one would only overflow KV's key size limit.
  if (clientId.length > CLIENT_ID_MAX_CHARS) return undefined;
  const entry = await readKey<ClientRecord>(kv, clientKey(clientId));
  return entry.value !== null && clientIsLive(entry.value, now) ? entry.value : undefined;
}

/** The stored entry of `clientId`, live or not (for a check-and-set). */
export async function readClientEntry(
  kv: Deno.Kv,
  clientId: string,
): Promise<Deno.KvEntryMaybe<ClientRecord>> {
  return await readKey<ClientRecord>(kv, clientKey(clientId));
}

/**
 * Stores the client a metadata document describes, in one check-and-set: a new or unapproved
 * one is (re)written from the document and expires unapproved like a registration; an approved
 * one keeps its approval and use times and gets the new freshness, unless the document now says
 * something else than what the owner approved: then nothing is written and the answer is
 * `"changed"`.
 */
export async function saveMetadataClient(
  kv: Deno.Kv,
  candidate: ClientRecord,
  unapprovedTtlMs: number,
  now: number,
): Promise<ClientRecord | "changed"> {
  return await commitWithRetry<ClientRecord | "changed">(async () => {
    const entry = await readKey<ClientRecord>(kv, clientKey(candidate.id));
    const old = entry.value !== null && clientIsLive(entry.value, now) ? entry.value : undefined;
    const op = atomic(kv).check(entry);
    if (old?.approvedAt !== undefined) {
      if (old.metadataDocument?.fingerprint !== candidate.metadataDocument?.fingerprint) {
        return { value: "changed" as const };
      }
      const record = { ...old, metadataDocument: candidate.metadataDocument };
      return { op: op.set(entry.key, record), value: record };
    }
    const createdAt = old?.createdAt ?? candidate.createdAt;
    const record: ClientRecord = {
      ...candidate,
      createdAt,
      unapprovedUntil: Date.parse(createdAt) + unapprovedTtlMs,
    };
    const expireIn = Math.max(1, record.unapprovedUntil! - now);
    return { op: op.set(entry.key, record, { expireIn }), value: record };
  });
}

/** A client as the owner's list shows it. */
export interface ClientSummary {
  client: ClientRecord;
  /** Grants (approvals with live tokens) it holds. */
  grants: number;
}

/** Every registered client still live, oldest first, with how many grants each holds. */
export async function listClients(kv: Deno.Kv, now = Date.now()): Promise<ClientSummary[]> {
  const out: ClientSummary[] = [];
  for await (const entry of listEntries<ClientRecord>(kv, { prefix: ["oauth_client"] })) {
    if (!clientIsLive(entry.value, now)) continue;
    let grants = 0;
    for await (const _ of listEntries(kv, { prefix: clientGrantsPrefix(entry.value.id) })) grants++;
    out.push({ client: entry.value, grants });
  }
  return out.sort((a, b) => a.client.createdAt.localeCompare(b.client.createdAt));
}

/**
 * Removes a client and revokes every grant it holds; returns whether it existed. The client goes
 * first: a code exchange racing with this checks the client in its atomic and fails, so no grant
 * can appear after the index below is read.
 */
export async function deleteClient(kv: Deno.Kv, clientId: string): Promise<boolean> {
  const existed = await commitWithRetry(async () => {
    const entry = await readKey<ClientRecord>(kv, clientKey(clientId));
    if (entry.value === null) return { value: false };
    return { op: atomic(kv).check(entry).delete(entry.key), value: true };
  });
  for await (const entry of listEntries<string>(kv, { prefix: clientGrantsPrefix(clientId) })) {
    await revokeGrant(kv, entry.value);
    await retryLocked(() => kv.delete(entry.key));
  }
  return existed;
}
