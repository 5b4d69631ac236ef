/**
 * The MCP SDK's OAuth schemas (RFC 7591, 8414, 9728 shapes), for the authorization server in
 * `src/oauth/`. Kept apart from `sdk.ts` so that module graph stays small; the `@ts-types` hint
 * exists for the reason given there.
 */

// @ts-types="@modelcontextprotocol/sdk/shared/auth"
export {
  OAuthClientInformationFullSchema,
  OAuthClientMetadataSchema,
  OAuthMetadataSchema,
  OAuthProtectedResourceMetadataSchema,
  OAuthTokenRevocationRequestSchema,
  OAuthTokensSchema,
} from "@modelcontextprotocol/sdk/shared/auth.js";
// @ts-types="@modelcontextprotocol/sdk/shared/auth"
export type {
  OAuthClientInformationFull,
  OAuthClientMetadata,
  OAuthMetadata,
  OAuthProtectedResourceMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
