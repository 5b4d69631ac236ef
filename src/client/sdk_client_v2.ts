/**
 * The MCP SDK v2 client (`@modelcontextprotocol/client`), for the hooks (`src/hooks/`), tests and
 * benchmarks: it speaks 2026-07-28 (pinned, or `auto` with a fallback to 2025). The v1 client in
 * `sdk_client.ts` stays as the 2025 client old hosts run, for tests only. The server's own graph
 * never imports this module; the hook commands of `main.ts` do, so it is in deno.json's imports.
 */

export {
  Client as ClientV2,
  InMemoryTransport as InMemoryTransportV2,
  StreamableHTTPClientTransport as StreamableHTTPClientTransportV2,
} from "@modelcontextprotocol/client";
export { StdioClientTransport as StdioClientTransportV2 } from "@modelcontextprotocol/client/stdio";
