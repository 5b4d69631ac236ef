/** The one map from an `AppError`'s kind to an HTTP status, and the error response built on it. */

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
