/**
 * The `tools/list` entries of a server, asked of the SDK itself once: a full server answers one
 * `tools/list` over an in-memory pair, so the listing a request server serves is exactly the one
 * the SDK builds (its JSON Schema conversion included), built once per toolset choice.
 */

import { InMemoryTransport, type JSONRPCMessage, type McpServer, type Tool } from "./sdk.ts";

const PROTOCOL = "2025-11-25";

/** Every tool `server` lists (following cursors), then closes `server`. */
export async function sdkListing(server: McpServer): Promise<Tool[]> {
  const [ours, theirs] = InMemoryTransport.createLinkedPair();
  const waiting = new Map<number, (message: JSONRPCMessage) => void>();
  ours.onmessage = (message) => {
    if ("id" in message && typeof message.id === "number") waiting.get(message.id)?.(message);
  };
  let next = 0;
  const ask = (method: string, params: Record<string, unknown>) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const id = ++next;
      waiting.set(id, (answer) => {
        waiting.delete(id);
        if ("result" in answer) resolve(answer.result as Record<string, unknown>);
        else reject(new Error(`${method} failed: ${JSON.stringify(answer)}`));
      });
      void ours.send({ jsonrpc: "2.0", id, method, params });
    });
  await server.connect(theirs);
  await ours.start();
  try {
    await ask("initialize", {
      protocolVersion: PROTOCOL,
      capabilities: {},
      clientInfo: { name: "handoff-mcp listing", version: "1" },
    });
    await ours.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    const tools: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await ask("tools/list", cursor === undefined ? {} : { cursor });
      tools.push(...(page.tools as Tool[]));
      cursor = page.nextCursor as string | undefined;
    } while (cursor !== undefined);
    return tools;
  } finally {
    await server.close();
  }
}
