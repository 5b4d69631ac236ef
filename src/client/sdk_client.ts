/**
 * The one place tests and benchmarks import the MCP SDK v1's client side from: the 2025 client
 * old hosts run. Named by its npm specifier, not in deno.json's imports, so the server's lock
 * (deno.lock: what a first `main.ts --stdio` downloads) never holds v1 and its tree.
 *
 * Kept apart from `mcp/sdk.ts` so the server's module graph never loads the client transports
 * (child processes, EventSource).
 */

// @ts-types="npm:@modelcontextprotocol/sdk@^1.32.2/client/index"
export { Client } from "npm:@modelcontextprotocol/sdk@^1.32.2/client/index.js";
// @ts-types="npm:@modelcontextprotocol/sdk@^1.32.2/client/streamableHttp"
export { StreamableHTTPClientTransport } from "npm:@modelcontextprotocol/sdk@^1.32.2/client/streamableHttp.js";
// @ts-types="npm:@modelcontextprotocol/sdk@^1.32.2/client/sse"
export { SSEClientTransport } from "npm:@modelcontextprotocol/sdk@^1.32.2/client/sse.js";
// @ts-types="npm:@modelcontextprotocol/sdk@^1.32.2/client/stdio"
export { StdioClientTransport } from "npm:@modelcontextprotocol/sdk@^1.32.2/client/stdio.js";
// @ts-types="npm:@modelcontextprotocol/sdk@^1.32.2/inMemory"
export { InMemoryTransport } from "npm:@modelcontextprotocol/sdk@^1.32.2/inMemory.js";
// @ts-types="npm:@modelcontextprotocol/sdk@^1.32.2/client/auth"
export { UnauthorizedError } from "npm:@modelcontextprotocol/sdk@^1.32.2/client/auth.js";
// @ts-types="npm:@modelcontextprotocol/sdk@^1.32.2/client/auth"
export type { OAuthClientProvider } from "npm:@modelcontextprotocol/sdk@^1.32.2/client/auth.js";
// @ts-types="npm:@modelcontextprotocol/sdk@^1.32.2/validation/ajv"
export { AjvJsonSchemaValidator } from "npm:@modelcontextprotocol/sdk@^1.32.2/validation/ajv";
// @ts-types="npm:@modelcontextprotocol/sdk@^1.32.2/types"
export { ResourceListChangedNotificationSchema } from "npm:@modelcontextprotocol/sdk@^1.32.2/types.js";
// @ts-types="npm:@modelcontextprotocol/sdk@^1.32.2/types"
export { ResourceUpdatedNotificationSchema } from "npm:@modelcontextprotocol/sdk@^1.32.2/types.js";
