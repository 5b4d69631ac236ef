/**
 * The one place the server side imports the MCP SDK from.
 *
 * Under Deno the SDK's `./*` export maps `server/mcp.js` to a `.js.d.ts` file that does not
 * exist, so a plain import type-checks as `any`. Each `@ts-types` hint points at the real
 * declaration file so `deno check` checks our use of the SDK.
 */

// @ts-types="@modelcontextprotocol/sdk/server/mcp"
export { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
// @ts-types="@modelcontextprotocol/sdk/server/completable"
export { completable } from "@modelcontextprotocol/sdk/server/completable.js";
// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
export { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/server/zod-compat"
export { normalizeObjectSchema, safeParse } from "@modelcontextprotocol/sdk/server/zod-compat.js";
// @ts-types="@modelcontextprotocol/sdk/server/zod-json-schema-compat"
export { toJsonSchemaCompat } from "@modelcontextprotocol/sdk/server/zod-json-schema-compat.js";
// @ts-types="@modelcontextprotocol/sdk/validation/ajv-provider"
export { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv-provider.js";
// @ts-types="@modelcontextprotocol/sdk/types"
export {
  CallToolRequestSchema,
  ErrorCode,
  isJSONRPCRequest,
  JSONRPCMessageSchema,
  ListToolsRequestSchema,
  McpError,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/sdk/types.js";

// @ts-types="@modelcontextprotocol/sdk/shared/transport"
export type {
  Transport,
  TransportSendOptions,
} from "@modelcontextprotocol/sdk/shared/transport.js";
// @ts-types="@modelcontextprotocol/sdk/types"
export type {
  CallToolResult,
  GetPromptResult,
  JSONRPCMessage,
  MessageExtraInfo,
  ReadResourceResult,
  ServerCapabilities,
  Tool,
} from "@modelcontextprotocol/sdk/types.js";
// @ts-types="@modelcontextprotocol/sdk/server/auth/types"
export type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
