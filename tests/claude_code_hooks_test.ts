/**
 * The plugin's hooks in the real Claude Code CLI (pinned in tests/support/clients.ts), against the
 * stub model on loopback: the brief reaches the model in Claude Code's first request, the session
 * is saved as a handoff when it ends (and saving it again adds nothing), and a session whose
 * server is down still completes.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { runClaude } from "./support/agent_runners.ts";
import { hostDenoDir, stdioTarget } from "./support/agents.ts";
import { ROOT } from "./support/harness.ts";
import { inGitRepo, readyClients, withAgentRig, withHookStore } from "./support/hooks.ts";

const PLUGIN = join(ROOT, "integrations", "claude-code");
const NORTH_STAR = "Ship widget v1 to the first ten shops";
const FOCUS = "Make the date parser read week dates";

/** Calls tools on the local KV at `kvPath`, as the hooks do. */
function withStore<T>(
  kvPath: string,
  fn: Parameters<typeof withHookStore<T>>[1],
): Promise<T> {
  return withHookStore({ KV_PATH: kvPath }, fn);
}

/** The handoff `key` once it exists (the background save may still run), at most 60 s. */
async function waitForHandoff(kvPath: string, key: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 120; i++) {
    const found = await withStore(kvPath, async (call) => {
      const { handoffs } = await call("handoff_search", { query: key.slice(-12), limit: 5 });
      return (handoffs as { key: string }[]).some((h) => h.key === key);
    });
    if (found) return await withStore(kvPath, (call) => call("handoff_load", { key }));
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`no handoff ${key} after 60 s`);
}

/** The transcript file of `sessionId` under the CLI's config folder. */
async function findTranscript(dir: string, sessionId: string): Promise<string | undefined> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) {
      const found = await findTranscript(path, sessionId);
      if (found) return found;
    } else if (entry.name === `${sessionId}.jsonl`) return path;
  }
  return undefined;
}

Deno.test("Claude Code with the plugin: brief in the first request, session saved once", async () => {
  const clients = await readyClients();
  if (clients === undefined) return;
  const plan = [{ tool: "get_state", args: { project_id: "acme/widget" } }];
  await withAgentRig({ plan, finalText: "Done: the parser reads week dates." }, async (rig) => {
    const { stub, kvPath } = rig;
    await withStore(kvPath, async (call) => {
      await call("set_north_star", { project_id: "acme/widget", text: NORTH_STAR });
      await call("set_focus", { project_id: "acme/widget", statement: FOCUS });
    });
    const run = await runClaude({
      clients: { ...clients, claude: inGitRepo(clients.claude) },
      modelUrl: stub.url,
      proxy: rig.proxy,
      mcp: await stdioTarget(kvPath),
      prompt: "What should I work on first?",
      args: ["--plugin-dir", PLUGIN],
      env: { KV_PATH: kvPath, DENO_DIR: await hostDenoDir() },
    });
    try {
      assert.equal(run.code, 0, run.stderr);
      const result = JSON.parse(run.stdout) as { session_id: string; result: string };
      assert.equal(result.result, "Done: the parser reads week dates.");
      // The first request Claude Code sends its model carries the brief.
      const first = stub.requests.find((r) =>
        r.path.startsWith("/v1/messages") && !r.path.includes("count_tokens")
      );
      const shown = JSON.stringify(first?.body);
      assert.ok(shown.includes(`NORTH STAR: ${NORTH_STAR}`), "the north star reached the model");
      assert.ok(shown.includes(FOCUS), "the focus reached the model");
      assert.ok(shown.includes('brief for project \\"acme/widget\\" (from the git remote)'));
      assert.ok(shown.includes("Waiting for you (claude-code)"), "the brief names its caller");
      // SessionEnd saved the session as a handoff with its turns.
      // (The SessionEnd hook returns at once and saves after: Claude Code cancels it at 1.5 s.)
      const key = `claude-code-${result.session_id}`;
      const saved = await waitForHandoff(kvPath, key);
      assert.equal(saved.from_ai, "Claude Code");
      assert.ok((saved.tags as string[]).includes("project:acme/widget"));
      assert.equal(
        saved.conversation,
        [
          "## User\n\nWhat should I work on first?\n\n## Assistant\n\n",
          '```tool call: mcp__handoff__get_state\n{"project_id":"acme/widget"}\n```\n\n',
          "```tool result: mcp__handoff__get_state · ok · 4 lines\n",
          `🎯 NORTH STAR: ${NORTH_STAR}\n▶ 本丸（今やる1つ）: ${FOCUS}\n`,
          "— 以下は後処理（北極星達成後・今は着手しない）—\n  （なし）\n```\n\n",
          "Done: the parser reads week dates.\n\n",
        ].join(""),
      );
      // The hook run again on the same transcript (PreCompact, then SessionEnd) adds nothing.
      const transcript = await findTranscript(join(run.home, ".claude"), result.session_id);
      assert.ok(transcript, "Claude Code wrote the transcript");
      const again = await new Deno.Command(join(PLUGIN, "bin", "handoff"), {
        args: ["save-transcript"],
        env: { KV_PATH: kvPath, NO_COLOR: "1" },
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      const writer = again.stdin.getWriter();
      await writer.write(new TextEncoder().encode(JSON.stringify({
        session_id: result.session_id,
        transcript_path: transcript,
        cwd: join(run.home, "work"),
        hook_event_name: "SessionEnd",
      })));
      await writer.close();
      const out = await again.output();
      assert.equal(out.code, 0);
      assert.match(
        new TextDecoder().decode(out.stderr),
        new RegExp(`unchanged ${key}: 2 messages`),
      );
      const after = await withStore(kvPath, (call) => call("handoff_load", { key }));
      assert.equal(after.updated_at, saved.updated_at, "nothing was written");
      assert.equal(after.conversation, saved.conversation);
    } finally {
      await run.cleanup();
    }
  });
});

Deno.test("Claude Code with the plugin still completes its session when the server is down", async () => {
  const clients = await readyClients();
  if (clients === undefined) return;
  // A port that was free a moment ago: nothing listens there.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const dead = `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}/${"t".repeat(32)}/mcp`;
  listener.close();
  await withAgentRig({ plan: [], finalText: "Done without the server." }, async (rig) => {
    const { stub } = rig;
    const run = await runClaude({
      clients: { ...clients, claude: inGitRepo(clients.claude) },
      modelUrl: stub.url,
      proxy: rig.proxy,
      mcp: { kind: "http", url: dead },
      prompt: "Carry on.",
      args: ["--plugin-dir", PLUGIN, "--debug", "hooks"],
      env: { HANDOFF_URL: dead, DENO_DIR: await hostDenoDir() },
    });
    try {
      assert.equal(run.code, 0, run.stderr);
      assert.equal(JSON.parse(run.stdout).result, "Done without the server.");
      const first = JSON.stringify(
        stub.requests.find((r) => r.path.startsWith("/v1/messages"))?.body,
      );
      // Claude Code's debug log records each hook's outcome: both ran, said why once, exited 0.
      const log = await Deno.readTextFile(join(run.home, ".claude", "debug", "latest"));
      assert.match(
        log,
        /SessionStart\) success:\\nhandoff-mcp brief: cannot reach the server at http:\/\/127\.0\.0\.1:\d+\/\[masked\]\/mcp/,
      );
      assert.match(
        log,
        /SessionEnd:\w+ \[.*save-transcript --background --client-name claude-code\] completed with status 0/,
      );
      // (Claude Code logs the MCP URL it was given itself; the hooks' lines never hold the token.)
      const ours = log.split("\n").filter((line) => line.includes("handoff-mcp "));
      assert.ok(ours.length > 0 && ours.every((line) => !line.includes("t".repeat(32))));
      assert.ok(!first.includes("cannot reach"), "the failure is not shown to the model");
      assert.ok(!first.includes("handoff-mcp session brief"), "no brief without a server");
      assert.ok(!first.includes("t".repeat(32)), "the token is never shown to the model");
    } finally {
      await run.cleanup();
    }
  });
});
