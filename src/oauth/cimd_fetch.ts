/**
 * Fetching a client ID metadata document (draft-ietf-oauth-client-id-metadata-document): the
 * `client_id` is an https URL the client chose, fetched with no redirects, from public addresses
 * only, within a size and a time limit. What the document says is checked in `cimd.ts`.
 */

import { addressProblem, isLoopbackHost, isLoopbackName } from "./cimd_address.ts";
import type { OAuthSettings } from "./settings.ts";

/** Longest `client_id` URL accepted, in characters. */
export const CIMD_URL_MAX_CHARS = 512;

/** Why a metadata document was not accepted; the message is shown to the owner as is. */
export class CimdError extends Error {}

/** What fetching needs from the settings. */
export type CimdSettings = Pick<
  OAuthSettings,
  "cimdAllowLoopback" | "cimdMaxBytes" | "cimdTimeoutMs" | "cimdCacheMs"
>;

/** A fetched document: its JSON object, and how long it may be reused (`Cache-Control`, bounded). */
export interface FetchedDocument {
  json: Record<string, unknown>;
  freshForMs: number;
}

/** True when `clientId` names a metadata document rather than a registration (`client_…`). */
export function isMetadataClientId(clientId: string): boolean {
  return /^https?:\/\//i.test(clientId);
}

/**
 * The URL of a metadata `client_id`, checked as the draft asks: https, a path other than `/`,
 * no dot segments, fragment or userinfo, written exactly as a URL parser writes it back (the
 * document's own `client_id` is compared as a string). Plain http only on a loopback host with
 * `OAUTH_CIMD_ALLOW_LOOPBACK=on`. Throws a `CimdError` saying what is wrong.
 */
export function clientIdUrl(clientId: string, settings: CimdSettings): URL {
  if (clientId.length > CIMD_URL_MAX_CHARS) {
    throw new CimdError(`a client_id URL may hold at most ${CIMD_URL_MAX_CHARS} characters`);
  }
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    throw new CimdError("the client_id is not a URL");
  }
  const loopbackHttp = url.protocol === "http:" && settings.cimdAllowLoopback &&
    isLoopbackHost(url.hostname.replace(/^\[|\]$/g, ""));
  if (url.protocol !== "https:" && !loopbackHttp) {
    throw new CimdError("a client_id URL must use https");
  }
  if (url.username !== "" || url.password !== "" || clientId.includes("#")) {
    throw new CimdError("a client_id URL may not hold a user name, password or fragment");
  }
  if (url.pathname === "/") throw new CimdError("a client_id URL needs a path other than /");
  // The parser removes dot segments (also written %2e) and lower-cases the host: a client_id it
  // would rewrite is refused, so the document's client_id is compared with what was fetched.
  if (url.href !== clientId) {
    throw new CimdError(
      `the client_id must be written as a normalised URL without . or .. segments (${url.href})`,
    );
  }
  return url;
}

/**
 * Checks that every address `url`'s host stands for is public (loopback too with the testing
 * setting). A name is resolved here and again by `fetch`: a DNS answer that changes in between
 * (rebinding) is not caught; the README says so.
 */
async function checkHost(url: URL, settings: CimdSettings): Promise<void> {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const literal = addressProblem(host, settings.cimdAllowLoopback);
  if (literal === undefined) return;
  if (!literal.endsWith("is not an IP address")) {
    throw new CimdError(`the client_id's host ${host} is ${literal}`);
  }
  if (isLoopbackName(host)) {
    if (settings.cimdAllowLoopback) return;
    throw new CimdError(`the client_id's host ${host} is ${addressProblem("127.0.0.1", false)}`);
  }
  const failures: string[] = [];
  const lookup = (type: "A" | "AAAA") =>
    Deno.resolveDns(host, type).catch((error) => {
      failures.push(error instanceof Error ? error.message : String(error));
      return [] as string[];
    });
  const found = (await Promise.all([lookup("A"), lookup("AAAA")])).flat();
  if (found.length === 0) {
    const why = failures.length > 0 ? ` (${failures[0]})` : "";
    throw new CimdError(`the client_id's host ${host} does not resolve${why}`);
  }
  for (const ip of found) {
    const problem = addressProblem(ip, settings.cimdAllowLoopback);
    if (problem) throw new CimdError(`the client_id's host ${host} resolves to ${ip}, ${problem}`);
  }
}

/** Fetches and parses the document at `url`; throws a `CimdError` saying what went wrong. */
export async function fetchMetadataDocument(
  url: URL,
  settings: CimdSettings,
): Promise<FetchedDocument> {
  await checkHost(url, settings);
  let res: Response;
  try {
    res = await fetch(url, {
      redirect: "manual",
      headers: { accept: "application/json" },
      signal: AbortSignal.timeout(settings.cimdTimeoutMs),
    });
  } catch (error) {
    const timedOut = error instanceof DOMException && error.name === "TimeoutError";
    throw new CimdError(
      timedOut
        ? `the document did not arrive within ${settings.cimdTimeoutMs} ms (OAUTH_CIMD_TIMEOUT_MS)`
        : `the document could not be fetched (${error instanceof Error ? error.message : error})`,
    );
  }
  if (res.status !== 200) {
    await res.body?.cancel();
    const redirect = res.status >= 300 && res.status < 400 ? ": redirects are not followed" : "";
    throw new CimdError(`the document answered HTTP ${res.status}, not 200${redirect}`);
  }
  const type = (res.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  if (!/^application\/([a-z0-9.+-]+\+)?json$/.test(type)) {
    await res.body?.cancel();
    throw new CimdError(`the document is ${type || "untyped"}, not application/json`);
  }
  const text = await readCapped(res, settings.cimdMaxBytes, settings.cimdTimeoutMs);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new CimdError("the document is not valid JSON");
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    throw new CimdError("the document is not a JSON object");
  }
  return { json: json as Record<string, unknown>, freshForMs: freshFor(res, settings) };
}

/** The body as text, refused past `max` bytes without reading on. */
async function readCapped(res: Response, max: number, timeoutMs: number): Promise<string> {
  const reader = res.body!.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const deadline = Date.now() + timeoutMs;
  const late = () =>
    new CimdError(`the document did not arrive within ${timeoutMs} ms (OAUTH_CIMD_TIMEOUT_MS)`);
  while (true) {
    let read: ReadableStreamReadResult<Uint8Array>;
    try {
      read = await reader.read();
    } catch (error) {
      // The fetch's time limit also ends a body that stalls after its headers.
      if (error instanceof DOMException && error.name === "TimeoutError") throw late();
      throw new CimdError(`the document could not be read (${(error as Error).message})`);
    }
    const { done, value } = read;
    if (done) break;
    size += value.byteLength;
    if (size > max || Date.now() > deadline) {
      await reader.cancel();
      throw size > max
        ? new CimdError(`the document is larger than ${max} bytes (OAUTH_CIMD_MAX_BYTES)`)
        : late();
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.byteLength;
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new CimdError("the document is not UTF-8");
  }
}

/** How long the response may be reused: its `max-age`, none for `no-store`/`no-cache`, bounded. */
function freshFor(res: Response, settings: CimdSettings): number {
  const cc = (res.headers.get("cache-control") ?? "").toLowerCase();
  if (/\b(no-store|no-cache)\b/.test(cc)) return 0;
  const age = cc.match(/\bmax-age=(\d+)/)?.[1];
  const ms = age === undefined ? settings.cimdCacheMs : Number(age) * 1000;
  return Math.min(ms, settings.cimdCacheMs);
}
