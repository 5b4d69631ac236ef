/** `deno task rotate-token` replaces the stored token; after a restart only the new one works. */

import assert from "node:assert/strict";
import { runTask, spawnServer, tempKvPath } from "./support/harness.ts";

function rotate(env: Record<string, string>) {
  return runTask(["rotate-token"], env);
}

async function status(url: string): Promise<number> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
  });
  await res.body?.cancel();
  return res.status;
}

Deno.test("rotate-token prints a new URL once; after a restart the old token is refused", async () => {
  const kv = await tempKvPath();
  try {
    const before = await spawnServer({ KV_PATH: kv.path });
    const oldToken = before.output.match(/\/([A-Za-z0-9_-]{43})\/mcp/)![1];
    await before.close();

    const rotated = await rotate({ KV_PATH: kv.path, PORT: "9999" });
    assert.equal(rotated.code, 0, rotated.stderr);
    const lines = rotated.stdout.trimEnd().split("\n");
    assert.equal(lines.length, 1);
    const newToken = lines[0].match(/^http:\/\/127\.0\.0\.1:9999\/([A-Za-z0-9_-]{43})\/mcp$/)![1];
    assert.notEqual(newToken, oldToken);
    assert.match(rotated.stderr, /restart/);

    const after = await spawnServer({ KV_PATH: kv.path });
    assert.match(after.output, new RegExp(`/${newToken}/mcp`));
    assert.equal(await status(`${after.origin}/${newToken}/mcp`), 200);
    assert.equal(await status(`${after.origin}/${oldToken}/mcp`), 404);
    await after.close();
  } finally {
    await kv.cleanup();
  }
});

Deno.test("rotate-token refuses when AUTH_TOKEN is set, naming it", async () => {
  const kv = await tempKvPath();
  try {
    const refused = await rotate({ KV_PATH: kv.path, AUTH_TOKEN: "x".repeat(40) });
    assert.equal(refused.code, 1);
    assert.equal(refused.stdout, "");
    assert.match(refused.stderr, /^handoff-mcp rotate-token: AUTH_TOKEN is set and overrides/);
  } finally {
    await kv.cleanup();
  }
});
