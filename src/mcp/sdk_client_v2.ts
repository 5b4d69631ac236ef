/**
 * The MCP SDK v2 client (`@modelcontextprotocol/client`), for tests and benchmarks: it speaks
 * 2026-07-28 (pinned, or `auto` with a fallback to 2025). The v1 client in `sdk_client.ts` stays
 * as the 2025 client old hosts run. Never imported by the server: it is named here by its npm
 * specifier, not in deno.json's imports, so no run of the server puts it in deno.lock.
 */

export {
  Client as ClientV2,
  StreamableHTTPClientTransport as StreamableHTTPClientTransportV2,
} from "npm:@modelcontextprotocol/client@^2.4.0";
export { StdioClientTransport as StdioClientTransportV2 } from "npm:@modelcontextprotocol/client@^2.4.0/stdio";
