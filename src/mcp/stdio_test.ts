import assert from "node:assert/strict";
import { loadConfig } from "../config.ts";
import { withKv } from "../../tests/support/kv.ts";
import { defaultCaller } from "./caller.ts";
import { serveStdio } from "./stdio.ts";

/** Runs the stdio server on `input` to its end; returns the lines it wrote. */
async function run(input: string, env: Record<string, string> = {}): Promise<string[]> {
  let output = "";
  await withKv(async (kv) => {
    const config = loadConfig(new Map(Object.entries(env)));
    const decoder = new TextDecoder();
    await serveStdio({ kv, config, caller: defaultCaller(config) }, [], {
      input: new Blob([input]).stream(),
      output: new WritableStream({ write: (chunk) => void (output += decoder.decode(chunk)) }),
    });
  });
  return output.trimEnd().split("\n").filter((l) => l !== "");
}

const INIT = JSON.stringify({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "t", version: "1" },
  },
});
const ping = (id: number) => JSON.stringify({ jsonrpc: "2.0", id, method: "ping" });

Deno.test("serveStdio() answers a last message that has no newline, and CRLF lines", async () => {
  const lines = await run(`${INIT}\r\n${ping(1)}\r\n${ping(2)}`);
  assert.deepEqual(lines.map((l) => JSON.parse(l).id), [0, 1, 2]);
});

Deno.test("serveStdio() drops a line over MAX_REQUEST_BYTES and goes on with the next", async () => {
  const huge = JSON.stringify({
    jsonrpc: "2.0",
    id: 9,
    method: "ping",
    params: { pad: "x".repeat(5000) },
  });
  const lines = await run(`${INIT}\n${huge}\n${ping(1)}\nnot json\n${ping(2)}\n`, {
    MAX_REQUEST_BYTES: "2048",
  });
  assert.deepEqual(lines.map((l) => JSON.parse(l).id), [0, 1, 2]);
});
