/**
 * The body of a Streamable HTTP POST, read once by the SDK's `readRequestBody` and parsed once,
 * so that input JSON-RPC refuses (an empty batch, a body cut short) gets its JSON-RPC error.
 */

import { isJsonContentType, readRequestBody } from "../mcp/sdk.ts";
import { json } from "../kit/web.ts";

/**
 * Most messages in one JSON-RPC batch: the SDK transport's own limit, kept on every path that
 * takes batches (each message is a request in flight).
 */
export const BATCH_MAX = 100;

/** True when a Content-Type is JSON (`application/json`, with parameters or not). */
export const isJson: (type: string | null) => boolean = isJsonContentType;

/** Reads and parses a JSON body under `maxBytes` (`MAX_REQUEST_BYTES`), or refuses it. */
export async function readRpcBody(
  req: Request,
  maxBytes: number,
): Promise<{ parsed: unknown } | Response> {
  if (!isJson(req.headers.get("content-type"))) {
    return rpcError(415, -32000, "Unsupported Media Type: Content-Type must be application/json");
  }
  let text: string;
  try {
    const read = await readRequestBody(req, maxBytes);
    if (read.tooLarge) {
      return rpcError(
        413,
        -32000,
        `Request body is larger than ${maxBytes} bytes (MAX_REQUEST_BYTES)`,
      );
    }
    text = read.text;
  } catch {
    // The connection ended mid-body (the client left, or the server is shutting down).
    return rpcError(400, -32700, "Parse error: the request body could not be read to its end");
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return rpcError(400, -32700, "Parse error: Invalid JSON");
  }
  if (Array.isArray(parsed) && parsed.length === 0) {
    return rpcError(400, -32600, "Invalid Request: an empty batch holds no message");
  }
  return { parsed };
}

/** A JSON-RPC error without an id, as the SDK's transport answers a malformed request. */
export function rpcError(status: number, code: number, message: string): Response {
  return json(status, { jsonrpc: "2.0", id: null, error: { code, message } });
}
