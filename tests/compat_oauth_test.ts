/**
 * The compatibility suite's OAuth case: the real mcp-remote (pinned, from npm) signs in to the
 * server with OAUTH=on end to end: discovery, registration, the consent page (approved by a
 * stand-in browser that mcp-remote opens through `BROWSER`), PKCE code exchange; then a tool call
 * through it succeeds and the server knows the caller `via: oauth`.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { baseEnv, hostDenoDir, makeHome, startDialRecorder } from "./support/agents.ts";
import { installClients } from "./support/clients.ts";
import { call, ROOT, startServer } from "./support/harness.ts";
import { OAUTH_ENV, OWNER_SECRET } from "./support/oauth.ts";
import { Client, StdioClientTransport } from "../src/client/sdk_client.ts";

const clients = await installClients();
if ("skip" in clients) console.warn(clients.skip);

/** A port nothing listens on now, for mcp-remote's OAuth callback. */
function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/** A `BROWSER` command that runs tests/support/oauth_browser.ts on the URL it is given. */
async function browserScript(home: string): Promise<string> {
  const path = join(home, "browser.sh");
  const deno = Deno.execPath();
  await Deno.writeTextFile(
    path,
    `#!/bin/sh\nexec "${deno}" run --allow-net --allow-env --allow-write --allow-read --config "${
      join(ROOT, "deno.json")
    }" --lock="${join(ROOT, "deno.test.lock")}" "${
      join(ROOT, "tests/support/oauth_browser.ts")
    }" "$1"\n`,
  );
  await Deno.chmod(path, 0o755);
  return path;
}

Deno.test({
  name: "compat: mcp-remote signs in with OAuth through the consent page and calls tools via oauth",
  ignore: "skip" in clients,
  async fn() {
    if ("skip" in clients) return;
    const server = await startServer({ env: { ...OAUTH_ENV } });
    const home = await makeHome();
    const recorder = startDialRecorder();
    const log = join(home, "browser.log");
    const transport = new StdioClientTransport({
      command: clients.mcpRemote.command,
      args: [...clients.mcpRemote.args, `${server.origin}/mcp`, String(freePort())],
      cwd: join(home, "work"),
      env: {
        ...baseEnv(home, recorder.url),
        BROWSER: await browserScript(home),
        MCP_REMOTE_CONFIG_DIR: join(home, ".mcp-auth"),
        DENO_DIR: await hostDenoDir(),
        COMPAT_OWNER_SECRET: OWNER_SECRET,
        COMPAT_BROWSER_LOG: log,
      },
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr?.on("data", (chunk: Uint8Array) => stderr += new TextDecoder().decode(chunk));
    const client = new Client({ name: "compat-mcp-remote", version: "1.0.0" });
    try {
      await client.connect(transport).catch((e) => {
        throw new Error(`mcp-remote did not connect: ${e}\n${stderr}`);
      });
      const browsed = await Deno.readTextFile(log).catch(() => "");
      assert.match(browsed, /\/authorize\?/, `mcp-remote never opened the consent page\n${stderr}`);
      assert.match(
        browsed,
        /approved; callback http:\/\/(127\.0\.0\.1|localhost):\d+ answered 200/,
      );
      const context = await call(client, "get_workspace_context", {});
      assert.equal(context.isError, false, context.text);
      const you = context.structured.you_are as { name: string; via: string; client_id?: string };
      assert.equal(you.via, "oauth", JSON.stringify(you));
      assert.ok(you.client_id, "the caller carries its OAuth client id");
      const created = await call(client, "create_discussion", {
        title: "Signed in via mcp-remote",
      });
      assert.equal(created.isError, false, created.text);
      assert.deepEqual(recorder.dials, [], "mcp-remote dialed beyond loopback");
    } finally {
      await client.close();
      recorder.close();
      await server.close();
      await Deno.remove(home, { recursive: true });
    }
  },
});
