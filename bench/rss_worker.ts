/**
 * A burst of concurrent `handoff_save`s of one size, as raw MCP POSTs (half 2025-era, half
 * 2026-07-28 with its envelope and headers), run in a process of its own so its memory never
 * counts as the server's. Prints one JSON line: how many were stored, refused busy, or failed.
 *
 * deno run --allow-net bench/rss_worker.ts <mcp url> <count> <bytes> <key prefix>
 */

const [url, countArg, bytesArg, prefix] = Deno.args;
const count = Number(countArg);
const bytes = Number(bytesArg);

/** About `bytes` of conversation, mixed ASCII and multi-byte text, distinct per save. */
function conversation(i: number): string {
  const unit = `## User\n\nQuestion ${i} about the chunked store — ünïcödé 日本語\n\n` +
    `## Assistant\n\nAnswer ${i}: chunks under a manifest swapped in last.\n\n`;
  const size = new TextEncoder().encode(unit).byteLength;
  return unit.repeat(Math.max(1, Math.floor(bytes / size)));
}

const MODERN = "2026-07-28";

async function save(i: number): Promise<{ outcome: "stored" | "busy" | "error"; text: string }> {
  const modern = i % 2 === 1;
  const args = { key: `${prefix}-${i}`, summary: "memory bench", conversation: conversation(i) };
  const params: Record<string, unknown> = { name: "handoff_save", arguments: args };
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  };
  if (modern) {
    params._meta = {
      "io.modelcontextprotocol/protocolVersion": MODERN,
      "io.modelcontextprotocol/clientCapabilities": {},
      "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" },
    };
    Object.assign(headers, {
      "mcp-protocol-version": MODERN,
      "mcp-method": "tools/call",
      "mcp-name": "handoff_save",
    });
  } else headers["mcp-protocol-version"] = "2025-06-18";
  const response = await fetch(url, {
    method: "POST",
    headers,
    body: JSON.stringify({ jsonrpc: "2.0", id: i, method: "tools/call", params }),
  });
  const text = await response.text();
  const body = text.startsWith("{") ? JSON.parse(text) : JSON.parse(text.split("data: ")[1]);
  const result = body.result;
  if (result && !result.isError) return { outcome: "stored", text: "" };
  const message = result?.content?.[0]?.text ?? body.error?.message ?? text.slice(0, 200);
  return { outcome: /busy/i.test(message) ? "busy" : "error", text: message };
}

const results = await Promise.all(Array.from({ length: count }, (_, i) => save(i)));
const tally = { stored: 0, busy: 0, error: 0, messages: [] as string[] };
for (const r of results) {
  tally[r.outcome]++;
  if (r.outcome !== "stored" && !tally.messages.includes(r.text)) tally.messages.push(r.text);
}
console.log(JSON.stringify(tally));
