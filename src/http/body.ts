/**
 * The body of a Streamable HTTP POST, read and parsed once, so that input JSON-RPC refuses (an
 * empty batch, a body cut short) gets its JSON-RPC error.
 */

import { AppError } from "../kit/errors.ts";
import { json, readText } from "../kit/web.ts";

/** The parsed body, or a refusal. */
export type RpcBody = { parsed: unknown } | Response;

/**
 * Most messages in one JSON-RPC batch: the SDK transport's own limit, kept on every path that
 * takes batches (each message is a request in flight).
 */
export const BATCH_MAX = 100;

/** Reads and parses a JSON body under `maxBytes`; the caller has checked it is declared JSON. */
export async function readRpcBody(req: Request, maxBytes: number): Promise<RpcBody> {
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

/** A JSON-RPC error without an id, as the SDK's transport answers a malformed request. */
export function rpcError(status: number, code: number, message: string): Response {
  return json(status, { jsonrpc: "2.0", id: null, error: { code, message } });
}

/** True when a Content-Type is JSON (`application/json`, with parameters or not). */
export function isJson(type: string | null): boolean {
  return type !== null && /^\s*application\/json\s*(;|$)/i.test(type);
}
