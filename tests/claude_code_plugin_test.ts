/**
 * The plugin folder itself: its manifests pass the real Claude Code CLI's `plugin validate`, its
 * MCP server entry serves the tools over stdio through the launcher, and the launcher outside a
 * checkout says so without breaking a session.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { Client, StdioClientTransport } from "../src/client/sdk_client.ts";
import { hostDenoDir, makeHome } from "./support/agents.ts";
import { ROOT, tempKvPath } from "./support/harness.ts";
import { readyClients } from "./support/hooks.ts";

const PLUGIN = join(ROOT, "integrations", "claude-code");
const LAUNCHER = join(PLUGIN, "bin", "handoff");

Deno.test("claude plugin validate passes the plugin and the repository's marketplace", async () => {
  const clients = await readyClients();
  if (clients === undefined) return;
  const home = await makeHome();
  try {
    for (const path of [PLUGIN, ROOT]) {
      const out = await new Deno.Command(clients.claude.command, {
        args: [...clients.claude.args, "plugin", "validate", path],
        env: { HOME: home, CLAUDE_CONFIG_DIR: join(home, ".claude"), DISABLE_AUTOUPDATER: "1" },
        stdout: "piped",
        stderr: "piped",
      }).output();
      const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
      assert.equal(out.code, 0, text);
      assert.match(text, /Validation passed/);
    }
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("the plugin's hooks and MCP entry all run its launcher", async () => {
  const hooks = JSON.parse(await Deno.readTextFile(join(PLUGIN, "hooks", "hooks.json"))).hooks;
  const command = (event: string) => hooks[event][0].hooks[0].command;
  const named = " --client-name claude-code";
  assert.equal(command("SessionStart"), `"\${CLAUDE_PLUGIN_ROOT}/bin/handoff" brief${named}`);
  assert.equal(
    command("PreCompact"),
    `"\${CLAUDE_PLUGIN_ROOT}/bin/handoff" save-transcript${named}`,
  );
  assert.equal(
    command("SessionEnd"),
    `"\${CLAUDE_PLUGIN_ROOT}/bin/handoff" save-transcript --background${named}`,
  );
  const mcp = JSON.parse(await Deno.readTextFile(join(PLUGIN, ".mcp.json"))).mcpServers.handoff;
  assert.deepEqual(mcp, {
    command: "${CLAUDE_PLUGIN_ROOT}/bin/handoff",
    args: ["stdio", "--client-name", "claude-code"],
  });
});

Deno.test("the plugin's MCP entry serves the tools on the KV it is given, named claude-code", async () => {
  const entry = JSON.parse(await Deno.readTextFile(join(PLUGIN, ".mcp.json"))).mcpServers.handoff;
  const kv = await tempKvPath();
  const client = new Client({ name: "plugin-test", version: "1.0.0" });
  try {
    await client.connect(
      new StdioClientTransport({
        command: LAUNCHER,
        args: entry.args,
        env: {
          ...Deno.env.toObject(),
          KV_PATH: kv.path,
          DENO_DIR: await hostDenoDir(),
          NO_COLOR: "1",
        },
        stderr: "pipe",
      }),
    );
    const { tools } = await client.listTools();
    assert.ok(tools.some((t) => t.name === "get_state"));
    assert.ok(tools.some((t) => t.name === "handoff_load"));
    // The caller is named, not the anonymous default: what it posts and accepts is its own.
    const context = await client.callTool({ name: "get_workspace_context", arguments: {} });
    const you = (context.structuredContent as { you_are: { name: string } }).you_are;
    assert.equal(you.name, "claude-code");
  } finally {
    await client.close();
    await kv.cleanup();
  }
});

Deno.test("the launcher outside a checkout says so once; hooks exit 0, stdio 1", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(join(dir, "bin"));
    await Deno.copyFile(LAUNCHER, join(dir, "bin", "handoff"));
    await Deno.chmod(join(dir, "bin", "handoff"), 0o755);
    for (const [task, code] of [["brief", 0], ["save-transcript", 0], ["stdio", 1]] as const) {
      const out = await new Deno.Command(join(dir, "bin", "handoff"), {
        args: [task],
        env: { PATH: Deno.env.get("PATH") ?? "" },
        clearEnv: true,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.equal(out.code, code, task);
      assert.equal(new TextDecoder().decode(out.stdout), "");
      assert.equal(
        new TextDecoder().decode(out.stderr),
        `handoff-mcp ${task}: set HANDOFF_MCP_DIR to the handoff-mcp folder (no main.ts found)\n`,
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
