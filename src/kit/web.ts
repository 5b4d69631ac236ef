/**
 * What any HTTP route of a feature builds on: the route shape, JSON and text responses, and
 * bodies read under a size limit. Failures are `AppError`s, mapped to statuses in `http/`.
 */

import type { Caller } from "./caller.ts";
import { AppError } from "./errors.ts";

/** What a route handler gets besides the request. */
export interface RouteContext {
  url: URL;
  /** The path prefix the caller used before the route (`/<token>/` or `/`), for links. */
  base: string;
  params: Record<string, string>;
  /** Who is calling (resolved once per request); the process default on a public route. */
  caller: Caller;
  /** The connection (its remote address), when the server has it: limits count by address. */
  info?: Deno.ServeHandlerInfo;
}

/** A handler of one method of one route. */
export type RouteHandler = (req: Request, ctx: RouteContext) => Promise<Response> | Response;

/** One path and its handlers by method. */
export interface Route {
  /** Path after the token, e.g. `mcp` or `api/handoffs/:key`. */
  path: string;
  /**
   * Served at the path itself, without the token in front or as bearer: the route checks its
   * own key (a read-only page behind a separate secret). Off unless set.
   */
  public?: boolean;
  methods: Partial<Record<string, RouteHandler>>;
}

/** A response with a JSON body. */
export function json(status: number, body: unknown, headers: HeadersInit = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

/** A plain-text response. */
export function plain(status: number, text: string, headers: HeadersInit = {}): Response {
  return new Response(text, {
    status,
    headers: { "content-type": "text/plain; charset=utf-8", ...headers },
  });
}

/** A whole-body decoder keeps no state between calls, so one serves every request. */
export const UTF8 = new TextDecoder("utf-8", { fatal: true });

/** Reads the whole body as text, refusing more than `maxBytes` before it is all buffered. */
export async function readText(req: Request, maxBytes: number): Promise<string> {
  const tooLarge = () =>
    new AppError("too_large", `Request body is larger than ${maxBytes} bytes (MAX_REQUEST_BYTES)`);
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > maxBytes) throw tooLarge();
  if (!req.body) return "";
  const chunks: Uint8Array<ArrayBuffer>[] = [];
  let size = 0;
  for await (const chunk of req.body) {
    size += chunk.byteLength;
    if (size > maxBytes) throw tooLarge();
    chunks.push(chunk);
  }
  try {
    return UTF8.decode(await new Blob(chunks).arrayBuffer());
  } catch {
    throw new AppError("invalid", "Request body is not valid UTF-8");
  }
}

/** Reads and parses a JSON body under the size limit. */
export async function readJson(req: Request, maxBytes: number): Promise<unknown> {
  const text = await readText(req, maxBytes);
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError("invalid", "Request body is not valid JSON");
  }
}

/** The token of an `Authorization: Bearer …` header, or `null`. */
export function bearerToken(req: Request): string | null {
  const header = req.headers.get("authorization");
  const match = header?.match(/^Bearer\s+(\S+)\s*$/i);
  return match ? match[1] : null;
}

/** The value of cookie `name` in the request's `Cookie` header, or `undefined`. */
export function cookieValue(req: Request, name: string): string | undefined {
  for (const part of (req.headers.get("cookie") ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * Explicit directional formatting characters: embeddings and overrides (U+202A–U+202E) and
 * isolates (U+2066–U+2069). Stored text shown on a page gets them as visible `[U+202E]`, so none
 * can close the isolation around it or reorder the page's own text.
 */
const BIDI_CONTROL = /[\u202A-\u202E\u2066-\u2069]/g;

function showBidiControls(text: string): string {
  return text.replace(BIDI_CONTROL, (c) => `[U+${c.codePointAt(0)!.toString(16).toUpperCase()}]`);
}

/**
 * Stored text (a name, a title, a workspace) for HTML content: escaped, its direction controls
 * shown, inside `<bdi>`, so whatever direction it has cannot reorder the page's text around it
 * (`\u202EedualC` shows as `[U+202E]edualC`, and the sentence after it stays as written). For
 * element content only: attributes take `escapeHtml`.
 */
export function isolatedHtml(text: string): string {
  return `<bdi>${escapeHtml(showBidiControls(text))}</bdi>`;
}

/**
 * Stored text for a context that holds no markup (a page's `<title>`): its direction controls
 * shown, between U+2068 FIRST STRONG ISOLATE and U+2069 POP DIRECTIONAL ISOLATE. Not escaped.
 */
export function isolatedText(text: string): string {
  return `\u2068${showBidiControls(text)}\u2069`;
}

/** Escapes text for HTML content and double-quoted or single-quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;").replaceAll("'", "&#39;");
}
