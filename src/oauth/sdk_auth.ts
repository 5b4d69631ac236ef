/**
 * The MCP SDK's OAuth schemas (RFC 7591, 8414, 9728 shapes), for the authorization server in
 * `src/oauth/`, from `@modelcontextprotocol/core` (the SDK's public schema package). Kept apart
 * from `sdk.ts` so that module graph stays small.
 */

export {
  OAuthClientInformationFullSchema,
  OAuthClientMetadataSchema,
  OAuthMetadataSchema,
  OAuthProtectedResourceMetadataSchema,
  OAuthTokenRevocationRequestSchema,
  OAuthTokensSchema,
} from "@modelcontextprotocol/core";
export type {
  OAuthClientInformationFull,
  OAuthClientMetadata,
  OAuthMetadata,
  OAuthProtectedResourceMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/server";
