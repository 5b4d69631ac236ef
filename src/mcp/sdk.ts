/**
 * The one place the server side imports the MCP SDK from: SDK v2 (`@modelcontextprotocol/server`),
 * by its public API only (tests/layout_test.ts refuses an underscore member of an SDK object).
 */

export {
  classifyInboundRequest,
  completable,
  createMcpHandler,
  deserializeMessage,
  hostHeaderValidationResponse,
  isJsonContentType,
  isLegacyRequest,
  localhostAllowedHostnames,
  McpServer,
  originValidationResponse,
  parseJSONRPCMessage,
  ProtocolError,
  ProtocolErrorCode,
  readRequestBody,
  ResourceTemplate,
  SUPPORTED_PROTOCOL_VERSIONS,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
export { serveStdio } from "@modelcontextprotocol/server/stdio";

export type {
  AuthInfo,
  CacheHint,
  CallToolResult,
  GetPromptResult,
  Icon,
  JSONRPCMessage,
  McpHttpHandler,
  McpRequestContext,
  MessageExtraInfo,
  ReadResourceResult,
  ServerCapabilities,
  ServerContext,
  ServerEvent,
  ServerEventBus,
  Tool,
  Transport,
  TransportSendOptions,
} from "@modelcontextprotocol/server";
