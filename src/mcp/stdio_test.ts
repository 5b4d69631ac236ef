import assert from "node:assert/strict";
import { loadConfig } from "../config.ts";
import { withKv } from "../../tests/support/kv.ts";
import { defaultCaller } from "../tools/caller.ts";
import { serveStdio } from "./stdio.ts";
import { initializeBody } from "../../tests/support/rpc.ts";

/** Runs the stdio server on `input` to its end; returns the lines it wrote. */
async function run(input: string, env: Record<string, string> = {}): Promise<string[]> {
  let output = "";
  await withKv(async (kv) => {
    const config = loadConfig(new Map(Object.entries(env)));
    const decoder = new TextDecoder();
    await serveStdio({ kv, config, caller: defaultCaller(config) }, [], {
      readable: new Blob([input]).stream(),
      writable: new WritableStream({ write: (chunk) => void (output += decoder.decode(chunk)) }),
    });
  });
  return output.trimEnd().split("\n").filter((l) => l !== "");
}

const INIT = initializeBody(0);
const ping = (id: number) => JSON.stringify({ jsonrpc: "2.0", id, method: "ping" });

Deno.test("serveStdio() answers a last message that has no newline, and CRLF lines", async () => {
  const lines = await run(`${INIT}\r\n${ping(1)}\r\n${ping(2)}`);
  assert.deepEqual(lines.map((l) => JSON.parse(l).id), [0, 1, 2]);
});

const pinged = (id: number | string, pad: string) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "ping", params: { pad } });

/**
 * Each answer as `id: ok` or `id: <error code>`, sorted: answers come in the order they finish.
 * Checks that every error names the limit.
 */
function outcomes(lines: string[], limit: number): string[] {
  return lines.map((line) => {
    const answer = JSON.parse(line);
    if (answer.error === undefined) return `${answer.id}: ok`;
    assert.match(answer.error.message, new RegExp(`MAX_REQUEST_BYTES \\(${limit} bytes\\)`));
    return `${answer.id}: ${answer.error.code}`;
  }).sort();
}

Deno.test("serveStdio() answers a line over MAX_REQUEST_BYTES with an error and goes on with the next", async () => {
  // The SDK writes the id last; other clients write it first; a notification has none (an id
  // inside its params is not its own).
  const idLast = (id: number) =>
    JSON.stringify({ method: "ping", params: { pad: "x".repeat(5000) }, jsonrpc: "2.0", id });
  const idFirst = pinged("big", "y".repeat(5000));
  const noId = JSON.stringify({
    jsonrpc: "2.0",
    method: "notifications/message",
    params: { pad: "z".repeat(5000), id: 7 },
  });
  const input = `${INIT}\n${idLast(9)}\n${ping(1)}\nnot json\n${idFirst}\n${noId}\n${ping(2)}\n` +
    idLast(10);
  const lines = await run(input, { MAX_REQUEST_BYTES: "2048" });
  assert.deepEqual(outcomes(lines, 2048), [
    "0: ok",
    "10: -32600",
    "1: ok",
    "2: ok",
    "9: -32600",
    "big: -32600",
    "null: -32600",
  ]);
});

Deno.test("serveStdio() counts MAX_REQUEST_BYTES in UTF-8 bytes, not characters", async () => {
  // 1100 two-byte characters: under 2048 characters, over 2048 bytes.
  const over = pinged(1, "é".repeat(1100));
  const under = pinged(2, "é".repeat(950));
  assert.ok(over.length < 2048 && new TextEncoder().encode(over).length > 2048);
  const lines = await run(`${INIT}\n${over}\n${under}\n`, { MAX_REQUEST_BYTES: "2048" });
  assert.deepEqual(outcomes(lines, 2048), ["0: ok", "1: -32600", "2: ok"]);
});

Deno.test("serveStdio() stops reading when told to, and still answers what it received", async () => {
  await withKv(async (kv) => {
    const config = loadConfig(new Map());
    const stop = new AbortController();
    let output = "";
    const decoder = new TextDecoder();
    // An input that never ends, as a client that keeps stdin open.
    const input = new ReadableStream<Uint8Array>({
      start: (c) => c.enqueue(new TextEncoder().encode(`${INIT}\n${ping(1)}\n`)),
    });
    const served = serveStdio({ kv, config, caller: defaultCaller(config) }, [], {
      readable: input,
      writable: new WritableStream({
        write(chunk) {
          output += decoder.decode(chunk);
          if (output.includes('"id":0')) stop.abort();
        },
      }),
    }, stop.signal);
    await served;
    const ids = output.trimEnd().split("\n").map((l) => JSON.parse(l).id).sort();
    assert.deepEqual(ids, [0, 1]);
  });
});

Deno.test("serveStdio() is not held past SHUTDOWN_GRACE_MS by a client that stops reading its output", async () => {
  await withKv(async (kv) => {
    const config = loadConfig(new Map([["SHUTDOWN_GRACE_MS", "50"]]));
    // The client never reads: the first write never completes.
    const stuck = new WritableStream<Uint8Array>({ write: () => new Promise(() => {}) });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const outcome = await Promise.race([
      serveStdio({ kv, config, caller: defaultCaller(config) }, [], {
        readable: new Blob([`${INIT}\n${ping(1)}\n`]).stream(),
        writable: stuck,
      }).then(() => "returned"),
      new Promise((resolve) => timer = setTimeout(() => resolve("still waiting"), 5000)),
    ]);
    clearTimeout(timer);
    assert.equal(outcome, "returned");
  });
});

Deno.test("serveStdio() checks every message that is not a plain request against the JSON-RPC schema", async () => {
  const lines = await run(
    [
      INIT,
      JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
      // Not JSON-RPC messages: never answered, never carried out.
      JSON.stringify({ jsonrpc: "2.0", id: 1.5, method: "ping" }),
      JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping", extra: true }),
      JSON.stringify({ id: 3, method: "ping" }),
      JSON.stringify({ hello: "world" }),
      "[]",
      // A request with a task relation is a message the schema takes.
      JSON.stringify({
        jsonrpc: "2.0",
        id: 4,
        method: "ping",
        params: { _meta: { "io.modelcontextprotocol/related-task": { taskId: "t" } } },
      }),
      ping(5),
    ].join("\n"),
  );
  assert.deepEqual(lines.map((l) => JSON.parse(l).id), [0, 4, 5]);
});
