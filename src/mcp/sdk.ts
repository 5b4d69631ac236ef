/**
 * The one place serving imports the MCP SDK from: SDK v2 (`@modelcontextprotocol/server`), by its
 * public API only (tests/layout_test.ts refuses an underscore member of an SDK object). What a
 * toolset defines its tools with comes through `tools/sdk.ts`.
 */

export {
  classifyInboundRequest,
  createMcpHandler,
  deserializeMessage,
  hostHeaderValidationResponse,
  isJsonContentType,
  localhostAllowedHostnames,
  McpServer,
  originValidationResponse,
  parseJSONRPCMessage,
  PROTOCOL_VERSION_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  readRequestBody,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
export { serveStdio } from "@modelcontextprotocol/server/stdio";

export type {
  AuthInfo,
  CacheHint,
  JSONRPCMessage,
  McpHttpHandler,
  MessageExtraInfo,
  ServerCapabilities,
  ServerContext,
  Tool,
  Transport,
} from "@modelcontextprotocol/server";
