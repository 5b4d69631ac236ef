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
