/** What every OAuth endpoint is handed: KV, settings, the owner's secret and the clock. */

import type { OAuthSettings } from "./settings.ts";

/** The OAuth server's dependencies; `now` is injectable so tests can expire codes. */
export interface OAuthContext {
  kv: Deno.Kv;
  settings: OAuthSettings;
  /** What the consent page asks for: `OAUTH_OWNER_SECRET`, else the server's `AUTH_TOKEN`. */
  ownerSecret: string;
  now(): number;
}

/** One request as the OAuth endpoints see it. */
export interface OAuthRequest {
  req: Request;
  url: URL;
  /** The origin clients reach this server at. */
  origin: string;
  /** The caller's address, for counting failed attempts. */
  address: string;
}
