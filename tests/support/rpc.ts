/** Raw JSON-RPC bodies for tests that speak to the server without an SDK client. */

/** An `initialize` request with the given id, asking for `protocolVersion`. */
export function initializeRequest(id = 1, protocolVersion = "2025-06-18") {
  return {
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: {
      protocolVersion,
      capabilities: {},
      clientInfo: { name: "raw-test", version: "1" },
    },
  } as const;
}

/** An `initialize` request as one JSON text, with the given id. */
export function initializeBody(id = 1): string {
  return JSON.stringify(initializeRequest(id));
}

/** The notification a client sends once it has the `initialize` answer. */
export const INITIALIZED = { jsonrpc: "2.0", method: "notifications/initialized" } as const;

/** The headers a Streamable HTTP POST carries. */
export const MCP_POST_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
} as const;
