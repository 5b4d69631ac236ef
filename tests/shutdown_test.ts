/**
 * Stopping never drops work in flight: a one-shot stdio client that closes stdin right after
 * writing its requests, and an HTTP server stopped by SIGTERM with requests running, both answer
 * everything they received and keep every write they acknowledged.
 */

import assert from "node:assert/strict";
import { openKv } from "../src/kit/kv.ts";
import { ROOT, spawnServer, tempKvPath } from "./support/harness.ts";

const SAVES = 30;

function initialize(id: number) {
  return {
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "one-shot", version: "1" },
    },
  };
}

function save(id: number, key: string, size = 20_000) {
  return {
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: {
      name: "handoff_save",
      arguments: {
        key,
        summary: `save ${key}`,
        conversation: `## User\n${"q".repeat(size)}\n## Assistant\nok`,
      },
    },
  };
}

/** Keys of the handoffs stored in the KV file at `path`. */
async function storedKeys(path: string): Promise<string[]> {
  const kv = await openKv(path);
  try {
    const keys: string[] = [];
    for await (const entry of kv.list({ prefix: ["handoff"] })) {
      if (entry.key.length === 2) keys.push(String(entry.key[1]));
    }
    return keys.sort();
  } finally {
    kv.close();
  }
}

Deno.test("a one-shot stdio client that closes stdin at once gets every answer, and every save is kept", async () => {
  const kv = await tempKvPath();
  try {
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-env", "--allow-read", "--allow-write", "main.ts", "--stdio"],
      cwd: ROOT,
      env: { KV_PATH: kv.path, NO_COLOR: "1" },
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const messages: unknown[] = [
      initialize(0),
      { jsonrpc: "2.0", method: "notifications/initialized" },
    ];
    const keys = Array.from({ length: SAVES }, (_, i) => `one-shot-${String(i).padStart(2, "0")}`);
    keys.forEach((key, i) => messages.push(save(i + 1, key)));
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(messages.map((m) => JSON.stringify(m)).join("\n")));
    await writer.close();
    const [status, stdout, stderr] = await Promise.all([
      child.status,
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
    ]);
    assert.equal(status.code, 0, stderr);
    const answers = stdout.trim().split("\n").map((line) => JSON.parse(line));
    const ids = answers.map((a) => a.id).sort((a, b) => a - b);
    assert.deepEqual(ids, Array.from({ length: SAVES + 1 }, (_, i) => i), "every request answered");
    for (const answer of answers.slice(1)) {
      assert.equal(answer.result?.isError, undefined, JSON.stringify(answer).slice(0, 300));
    }
    assert.deepEqual(await storedKeys(kv.path), keys);
  } finally {
    await kv.cleanup();
  }
});

/** Reads an SSE stream to its end, returning the JSON-RPC messages it carried. */
async function sseMessages(reader: ReadableStreamDefaultReader<string>, seen = ""): Promise<
  { id?: number; result?: { isError?: boolean } }[]
> {
  let text = seen;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  return [...text.matchAll(/event: message\ndata: (.+)\n\n/g)].map((m) => JSON.parse(m[1]));
}

Deno.test("SIGTERM answers every SSE request already accepted and keeps every save", async () => {
  const kv = await tempKvPath();
  const token = "t".repeat(40);
  try {
    const server = await spawnServer({ KV_PATH: kv.path, AUTH_TOKEN: token });
    const res = await fetch(`${server.origin}/${token}/sse`);
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let seen = "";
    while (!/data: \S+\n\n/.test(seen)) seen += (await reader.read()).value ?? "";
    const endpoint = seen.match(/data: (\S+)/)![1];
    const post = async (message: unknown) => {
      const r = await fetch(`${server.origin}${endpoint}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(message),
      });
      await r.body?.cancel();
      assert.equal(r.status, 202);
    };
    await post(initialize(0));
    await post({ jsonrpc: "2.0", method: "notifications/initialized" });
    const keys = Array.from({ length: SAVES }, (_, i) => `sse-${String(i).padStart(2, "0")}`);
    await Promise.all(keys.map((key, i) => post(save(i + 1, key, 200_000))));
    const [messages] = await Promise.all([sseMessages(reader, seen), server.close("SIGTERM")]);
    const answered = messages.filter((m) => typeof m.id === "number" && m.id > 0);
    assert.equal(answered.length, SAVES, "every accepted request was answered before the close");
    assert.ok(answered.every((m) => m.result && !m.result.isError));
    assert.deepEqual(await storedKeys(kv.path), keys);
  } finally {
    await kv.cleanup();
  }
});

Deno.test("SIGTERM with Streamable HTTP requests running keeps every acknowledged save", async () => {
  const kv = await tempKvPath();
  const token = "t".repeat(40);
  try {
    const server = await spawnServer({ KV_PATH: kv.path, AUTH_TOKEN: token });
    const keys = Array.from({ length: SAVES }, (_, i) => `http-${String(i).padStart(2, "0")}`);
    const firstAnswer = Promise.withResolvers<void>();
    const calls = keys.map(async (key, i) => {
      try {
        const r = await fetch(`${server.origin}/${token}/mcp`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
          },
          body: JSON.stringify(save(i + 1, key, 50_000)),
        });
        const text = await r.text();
        firstAnswer.resolve();
        return r.status === 200 && /"result"/.test(text) && !/"isError":true/.test(text)
          ? key
          : undefined;
      } catch {
        return undefined; // refused or cut: never acknowledged
      }
    });
    // Stop while the rest are running: once the first answer is back.
    await firstAnswer.promise;
    const [acknowledged] = await Promise.all([Promise.all(calls), server.close("SIGTERM")]);
    const acked = acknowledged.filter((k) => k !== undefined);
    assert.ok(acked.length > 0, "some saves were acknowledged");
    const stored = await storedKeys(kv.path);
    for (const key of acked) assert.ok(stored.includes(key), `acknowledged ${key} is stored`);
  } finally {
    await kv.cleanup();
  }
});

Deno.test("a client that never finishes its request holds SIGTERM no longer than SHUTDOWN_GRACE_MS", async () => {
  const token = "t".repeat(40);
  const server = await spawnServer({
    KV_PATH: ":memory:",
    AUTH_TOKEN: token,
    SHUTDOWN_GRACE_MS: "300",
  });
  const body = new ReadableStream<Uint8Array>({
    start: (c) => c.enqueue(new TextEncoder().encode('{"jsonrpc":"2.0",')),
  });
  const stuck = fetch(`${server.origin}/${token}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body,
  }).then((r) => r.body?.cancel(), () => {});
  await new Promise((r) => setTimeout(r, 100));
  let timer: ReturnType<typeof setTimeout> | undefined;
  const outcome = await Promise.race([
    server.close("SIGTERM").then(() => "exited"),
    new Promise((r) => timer = setTimeout(() => r("still running"), 8000)),
  ]);
  clearTimeout(timer);
  if (outcome !== "exited") await server.close("SIGKILL");
  await body.cancel().catch(() => {});
  await stuck;
  assert.equal(outcome, "exited");
});
