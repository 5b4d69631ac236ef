/**
 * The brief as another agent's `SessionStart` hook (`brief --json`, in the settings form the README
 * gives), in the real CLI against the stub model: it reaches its first request. Gemini CLI only:
 * `codex exec` skips hooks nobody trusted, and trusting one is interactive (`/hooks`).
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { runGemini } from "./support/agent_runners.ts";
import { hostDenoDir, stdioTarget } from "./support/agents.ts";
import { ROOT } from "./support/harness.ts";
import { inGitRepo, readyClients, withAgentRig, withHookStore } from "./support/hooks.ts";
import type { AgentOptions, AgentRun } from "./support/agents.ts";
import type { Clients } from "./support/clients.ts";

const NORTH_STAR = "Ship widget v1 to the first ten shops";
const BRIEF = join(ROOT, "integrations", "claude-code", "bin", "handoff") + " brief --json";

/** The hook settings, as a shell command writing them before the CLI starts. */
function writeSettings(path: string, timeout: number): string {
  const settings = {
    hooks: { SessionStart: [{ hooks: [{ type: "command", command: BRIEF, timeout }] }] },
  };
  return `mkdir -p "$(dirname ${path})" && printf '%s' '${JSON.stringify(settings)}' > ${path}`;
}

const CASES: {
  name: string;
  run: (o: AgentOptions) => Promise<AgentRun>;
  cli: (c: Clients) => Clients;
  modelUrl: (stub: { url: string }) => string;
}[] = [
  {
    name: "Gemini CLI (project .gemini/settings.json)",
    run: runGemini,
    cli: (c) => ({
      ...c,
      gemini: inGitRepo(c.gemini, writeSettings(".gemini/settings.json", 30000)),
    }),
    modelUrl: (stub) => stub.url,
  },
];

for (const c of CASES) {
  Deno.test(`${c.name}: the brief hook reaches the model's first request`, async () => {
    const clients = await readyClients();
    if (clients === undefined) return;
    await withAgentRig({ plan: [], finalText: "Done." }, async ({ kvPath, stub, proxy }) => {
      await withHookStore({ KV_PATH: kvPath }, async (call) => {
        await call("set_north_star", { project_id: "acme/widget", text: NORTH_STAR });
      });
      const run = await c.run({
        clients: c.cli(clients),
        modelUrl: c.modelUrl(stub),
        proxy,
        mcp: await stdioTarget(kvPath),
        prompt: "What should I work on first?",
        env: { KV_PATH: kvPath, DENO_DIR: await hostDenoDir() },
      });
      try {
        assert.equal(run.code, 0, run.stderr);
        const first = JSON.stringify(stub.requests[0]?.body);
        assert.ok(first.includes(`NORTH STAR: ${NORTH_STAR}`), "the north star reached the model");
        assert.ok(first.includes('brief for project \\"acme/widget\\" (from the git remote)'));
      } finally {
        await run.cleanup();
      }
    });
  });
}
