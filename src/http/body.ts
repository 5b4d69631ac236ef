/**
 * The body of a Streamable HTTP POST, read before the SDK sees it so that input the SDK would
 * wrongly accept (an empty batch, answered 202 there) is refused as JSON-RPC says.
 */

import { AppError } from "../kit/kv.ts";
import { json, readText } from "../kit/web.ts";

/** The parsed body for the SDK (`parsed: undefined` lets the SDK read it), or a refusal. */
export type RpcBody = { parsed: unknown } | Response;

/**
 * Reads and parses a JSON body under `maxBytes`. A body that is not declared JSON is left for
 * the SDK to refuse with its 415.
 */
export async function readRpcBody(req: Request, maxBytes: number): Promise<RpcBody> {
  const type = req.headers.get("content-type") ?? "";
  if (!/^application\/json\s*(;|$)/i.test(type.trim())) return { parsed: undefined };
  let text: string;
  try {
    text = await readText(req, maxBytes);
  } catch (error) {
    if (error instanceof AppError && error.kind === "too_large") {
      return rpcError(413, -32000, error.message);
    }
    if (error instanceof AppError) return rpcError(400, -32700, `Parse error: ${error.message}`);
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

function rpcError(status: number, code: number, message: string): Response {
  return json(status, { jsonrpc: "2.0", id: null, error: { code, message } });
}
