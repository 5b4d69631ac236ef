/** The server as a user runs it: `main.ts` in a child process, restarted on the same KV file. */

import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "../src/client/sdk_client.ts";
import { call, type ChildServer, ROOT, spawnServer, tempKvPath } from "./support/harness.ts";

async function connectTo(url: string) {
  const client = new Client({ name: "restart", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

function printedUrl(server: ChildServer): string {
  return server.output.match(/Connect an MCP client to: (\S+)/)![1];
}

Deno.test("without AUTH_TOKEN a local server prints a working URL whose token survives restarts", async () => {
  const kvFile = await tempKvPath();
  try {
    const first = await spawnServer({ KV_PATH: kvFile.path });
    const url = printedUrl(first);
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]{43}\/mcp$/);
    const client = await connectTo(url);
    assert.equal(
      (await call(client, "set_north_star", { project_id: "p", text: "Survive" })).isError,
      false,
    );
    await client.close();
    await first.close();

    const second = await spawnServer({ KV_PATH: kvFile.path });
    const again = printedUrl(second);
    assert.equal(new URL(again).pathname, new URL(url).pathname, "same token after restart");
    await second.close();
  } finally {
    await kvFile.cleanup();
  }
});

Deno.test("with AUTH_TOKEN set, the token is never printed", async () => {
  const kvFile = await tempKvPath();
  const token = "t".repeat(40);
  try {
    const server = await spawnServer({ KV_PATH: kvFile.path, AUTH_TOKEN: token });
    assert.ok(!server.output.includes(token));
    assert.match(server.output, /<AUTH_TOKEN>\/mcp/);
    await server.close();
  } finally {
    await kvFile.cleanup();
  }
});

Deno.test("a restart on the same KV file loses nothing acknowledged, even after SIGKILL", async () => {
  const kvFile = await tempKvPath();
  const token = "restart-test-token-0123456789abcdef";
  try {
    const first = await spawnServer({ KV_PATH: kvFile.path, AUTH_TOKEN: token });
    const client = await connectTo(`${first.origin}/${token}/mcp`);
    await call(client, "set_north_star", { project_id: "r", text: "Nothing is lost" });
    await call(client, "set_focus", { project_id: "r", statement: "Restart safely", why: "trust" });
    const added = await Promise.all(
      Array.from(
        { length: 30 },
        (_, i) =>
          call(client, "add_task", { project_id: "r", body: `follow-up ${i}`, kind: "record" }),
      ),
    );
    await call(client, "complete_task", { task_id: added[0].structured?.task_id });
    const before = (await call(client, "get_state", { project_id: "r" })).text;
    await client.close();
    await first.close("SIGKILL");

    const second = await spawnServer({ KV_PATH: kvFile.path, AUTH_TOKEN: token });
    const after = await connectTo(`${second.origin}/${token}/mcp`);
    const state = (await call(after, "get_state", { project_id: "r" })).text;
    assert.equal(state, before);
    assert.equal(state.split("\n").length, 3 + 29);
    await after.close();
    await second.close();
  } finally {
    await kvFile.cleanup();
  }
});

Deno.test("start-up problems end the process with one clear line, not a stack trace", async () => {
  const cases: [Record<string, string>, RegExp][] = [
    [{ PORT: "eighty" }, /configuration error: PORT must be a whole number from 0 to 65535/],
    [{ HOST: "no such host" }, /configuration error: HOST must be a host name or IP address/],
    [{ TOOLSETS: "focus,nope" }, /configuration error: TOOLSETS has unknown toolset "nope"/],
    [{ KV_PATH: "/proc/no-such-dir/x.kv" }, /cannot open KV at \/proc\/no-such-dir\/x.kv/],
    [
      { BENCH_SWITCHES: "off:group_comit" },
      /configuration error: BENCH_SWITCHES names "group_comit"/,
    ],
  ];
  for (const [env, pattern] of cases) {
    const { code, stderr } = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-net", "--allow-env", "--allow-read", "--allow-write", "main.ts"],
      cwd: ROOT,
      env: { KV_PATH: ":memory:", PORT: "0", NO_COLOR: "1", ...env },
      stdout: "null",
    }).output();
    const text = new TextDecoder().decode(stderr);
    assert.equal(code, 1, text);
    assert.match(text, pattern);
    assert.doesNotMatch(text, /\n\s+at /, "no stack trace");
  }
});
