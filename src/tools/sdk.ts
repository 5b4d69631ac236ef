/**
 * What a toolset defines its tools with from the MCP SDK (`@modelcontextprotocol/server`, v2): the
 * resource-template and completion helpers and the shapes of a definition. The one SDK import
 * of `tools/` and of the toolsets; serving takes the rest of the SDK through `mcp/sdk.ts`.
 */

export { completable, ResourceTemplate } from "@modelcontextprotocol/server";

export type {
  AuthInfo,
  CallToolResult,
  Icon,
  McpServer,
  ServerContext,
  Tool,
} from "@modelcontextprotocol/server";
