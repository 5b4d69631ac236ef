/**
 * Every refusal the front builds: the one map from an `AppError`'s kind to an HTTP status, the
 * JSON API's `{ error }` answers, and the JSON-RPC errors of the paths MCP clients speak to.
 */

import { AppError, type ErrorKind } from "../kit/errors.ts";
import { json } from "../kit/web.ts";

const STATUS_OF: Record<ErrorKind, number> = {
  invalid: 400,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  full: 409,
  busy: 503,
  // A stored record of the wrong shape: the server's data, not the request, is at fault.
  damaged: 500,
};

/** Paths (after the token) spoken to by MCP clients, whose refusals are JSON-RPC errors. */
export const RPC_PATHS: readonly string[] = ["mcp", "sse", "messages"];

/** The HTTP status that answers a failure of `kind`. */
export function statusOf(kind: ErrorKind): number {
  return STATUS_OF[kind];
}

/** A JSON error response: `{ error, kind, code? }` for an `AppError`, a bare 500 otherwise. */
export function errorResponse(error: unknown): Response {
  if (error instanceof AppError) {
    const body = error.code === undefined
      ? { error: error.message, kind: error.kind }
      : { error: error.message, kind: error.kind, code: error.code };
    return json(statusOf(error.kind), body);
  }
  console.error(`handoff-mcp: unexpected error: ${error instanceof Error ? error.stack : error}`);
  return json(500, { error: "Internal server error" });
}

/**
 * A JSON-RPC error; without an `id` (`null`), as the SDK's transport answers a request it could
 * not read.
 */
export function rpcError(
  status: number,
  code: number,
  message: string,
  id: unknown = null,
): Response {
  return json(status, { jsonrpc: "2.0", id, error: { code, message } });
}

/**
 * A refusal on route `path` before its handler ran: a JSON-RPC error (code -32000, no id: the
 * body was never read) on the MCP endpoints, `api` (the JSON APIs' own shape) elsewhere.
 */
export function refusal(
  path: string,
  status: number,
  message: string,
  api: Response,
  headers: Record<string, string>,
): Response {
  const refused = RPC_PATHS.includes(path) ? rpcError(status, -32000, message) : api;
  for (const [name, value] of Object.entries(headers)) refused.headers.set(name, value);
  return refused;
}
