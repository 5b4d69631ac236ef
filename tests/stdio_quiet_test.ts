/**
 * Claude Code logs every stderr line of a stdio server as an error: the README's stdio commands
 * must write nothing there on a clean run. Each command is taken from the README itself, run
 * from another folder (as a desktop app does), so the documentation stays true.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT, tempKvPath } from "./support/harness.ts";
import { INITIALIZED, initializeRequest } from "./support/rpc.ts";

/** A stdio server entry as the README shows it. */
interface Entry {
  args: string[];
  env?: Record<string, string>;
}

/** Every README JSON entry that starts the server with `--stdio`. */
async function readmeStdioEntries(): Promise<Entry[]> {
  const readme = await Deno.readTextFile(join(ROOT, "README.md"));
  const blocks = [...readme.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1]);
  const found: Entry[] = [];
  for (const block of blocks) {
    if (!block.includes('"--stdio"')) continue;
    const servers = JSON.parse(block).mcpServers as Record<string, Entry>;
    found.push(...Object.values(servers));
  }
  return found;
}

Deno.test("the README's stdio commands answer and write nothing to stderr", async () => {
  const entries = await readmeStdioEntries();
  assert.ok(entries.length >= 3, "the README shows its stdio configurations");
  for (const { args: documented, env } of entries) {
    // `npx -y deno …` runs the same Deno: drop the launcher, point the path at this checkout.
    const args = (documented[0] === "-y" ? documented.slice(2) : documented).map((a) =>
      a.endsWith("handoff-mcp/main.ts") ? join(ROOT, "main.ts") : a
    );
    const kv = await tempKvPath();
    try {
      const child = new Deno.Command(Deno.execPath(), {
        args,
        cwd: Deno.makeTempDirSync(),
        env: { ...env, KV_PATH: kv.path, NO_COLOR: "1" },
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      const writer = child.stdin.getWriter();
      const call = {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "list_projects" },
      };
      const lines = [initializeRequest(), INITIALIZED, call].map((m) => JSON.stringify(m) + "\n");
      await writer.write(new TextEncoder().encode(lines.join("")));
      await writer.close();
      const { stdout, stderr } = await child.output();
      const answers = new TextDecoder().decode(stdout).trim().split("\n").map((l) => JSON.parse(l));
      assert.deepEqual(answers.map((a) => a.id), [1, 2], args.join(" "));
      assert.equal(new TextDecoder().decode(stderr), "", args.join(" "));
    } finally {
      await kv.cleanup();
    }
  }
});
