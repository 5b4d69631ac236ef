/** The server's one error class and its kinds, so every layer says what was wrong the same way. */

/**
 * What went wrong, so the HTTP layer can choose a status without parsing messages:
 * bad input, an unknown id, a state that forbids the change (already resolved, already
 * accepted), a value over a size limit, a store or list that is full, too much contention
 * to commit in time, or a stored record of the wrong shape (see record_shapes.ts).
 */
export type ErrorKind =
  | "invalid"
  | "not_found"
  | "conflict"
  | "too_large"
  | "full"
  | "busy"
  | "damaged";

/**
 * The one error class of the server: a plain `Error` whose message says what was wrong and what
 * is allowed, with a `kind` (mapped to an HTTP status in one table) and, where a toolset names its
 * failures, a machine `code` that also starts the message (`SEQUENCE_NOT_FOUND: …`).
 */
export class AppError extends Error {
  /** The class of failure, mapped to an HTTP status in one place. */
  readonly kind: ErrorKind;
  /** A toolset's name for this failure, when it has one. */
  readonly code?: string;
  constructor(kind: ErrorKind, message: string, code?: string) {
    super(code === undefined ? message : `${code}: ${message}`);
    this.name = "AppError";
    this.kind = kind;
    if (code !== undefined) this.code = code;
  }
}

/** Throws a `AppError` of kind `invalid`. */
export function invalid(message: string): never {
  throw new AppError("invalid", message);
}
