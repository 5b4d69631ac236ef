/** OAuth's own error shape: an RFC 6749 error code, a description, and the HTTP status. */

import { json } from "../kit/web.ts";

/** An OAuth error as the token, registration and revocation endpoints answer it. */
export class OAuthError extends Error {
  /** The RFC 6749 / 7591 / 8707 error code, e.g. `invalid_grant`. */
  readonly code: string;
  readonly status: number;
  constructor(code: string, description: string, status = 400) {
    super(description);
    this.name = "OAuthError";
    this.code = code;
    this.status = status;
  }
}

/** The JSON answer of an `OAuthError`; never cached. */
export function oauthErrorResponse(error: OAuthError, headers: HeadersInit = {}): Response {
  return json(error.status, { error: error.code, error_description: error.message }, {
    "cache-control": "no-store",
    ...headers,
  });
}
