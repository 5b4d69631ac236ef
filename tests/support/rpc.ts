/** Raw JSON-RPC bodies for tests that speak to the server without an SDK client. */

/** An `initialize` request as one JSON text, with the given id. */
export function initializeBody(id = 1): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "raw-test", version: "1" },
    },
  });
}

/** The headers a Streamable HTTP POST carries. */
export const MCP_POST_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
} as const;
