/**
 * One case of the compatibility suite: the real server (in this process over Streamable HTTP, or
 * `main.ts --stdio` started by the CLI itself), a stored text from another session, the stub
 * model scripted with the full plan, and one run of a real agent CLI against both.
 */

import assert from "node:assert/strict";
import { type AgentOptions, type AgentRun, startDialRecorder, stdioTarget } from "./agents.ts";
import { runClaude, runCodex, runGemini } from "./agent_runners.ts";
import type { Clients } from "./clients.ts";
import { fullPlan, type Seed, seedUntrusted } from "./compat_plan.ts";
import { largeSteps } from "./compat_budget.ts";
import { connect, connectStdio, startServer, tempKvPath } from "./harness.ts";
import type { PlanStep } from "./stub_model.ts";
import { startStubModel, type StubModel } from "./stub_model.ts";

/** The agent CLIs under test ("claude-newest": Claude Code's newest release, with ToolSearch). */
export type AgentName = "claude" | "claude-newest" | "gemini" | "codex";
/** The transports each CLI is tried over. */
export type CompatTransport = "http" | "stdio";

const RUNNERS: Record<AgentName, (o: AgentOptions) => Promise<AgentRun>> = {
  claude: runClaude,
  "claude-newest": (o) =>
    runClaude({ ...o, clients: { ...o.clients, claude: o.clients.claudeNewest } }),
  gemini: runGemini,
  codex: runCodex,
};

/** What one case left for the assertions. */
export interface CaseOutcome {
  label: string;
  plan: PlanStep[];
  /** What the other session stored (the plan's targets). */
  seed: Seed;
  run: AgentRun;
  stub: StubModel;
  /** Proxied dials the CLI tried (anything but loopback). */
  dials: string[];
  /**
   * Tool calls the CLI itself reported as failed, beyond what its model was shown: Codex shows
   * its model no error flag, but `codex exec --json` marks such an `mcp_tool_call` "failed".
   */
  failedCalls: string[];
}

/** The `mcp_tool_call` items `codex exec --json` printed with status "failed". */
function codexFailures(stdout: string): string[] {
  const failed: string[] = [];
  for (const line of stdout.split("\n")) {
    if (!line.includes('"mcp_tool_call"')) continue;
    const event = JSON.parse(line) as {
      type: string;
      item: { type: string; tool: string; status: string; result?: unknown; error?: unknown };
    };
    if (event.type === "item.completed" && event.item.status === "failed") {
      failed.push(`${event.item.tool}: ${JSON.stringify(event.item.result ?? event.item.error)}`);
    }
  }
  return failed;
}

/** Runs `agent` over `transport` through a plan (the full one by default), returns what it did. */
export async function runCase(
  clients: Clients,
  agent: AgentName,
  transport: CompatTransport,
  planOf: (seed: Seed) => PlanStep[] = fullPlan,
): Promise<CaseOutcome> {
  const label = `${agent} over ${transport}`;
  const cleanups: (() => Promise<void>)[] = [];
  try {
    let mcp: AgentOptions["mcp"];
    let seed: Seed;
    if (transport === "http") {
      const server = await startServer();
      cleanups.push(() => server.close());
      const other = await connect(server, "http");
      seed = await seedUntrusted(other);
      await other.close();
      mcp = { kind: "http", url: `${server.origin}/${server.token}/mcp` };
    } else {
      const kv = await tempKvPath();
      cleanups.push(() => kv.cleanup());
      const other = await connectStdio(kv.path);
      seed = await seedUntrusted(other);
      await other.close();
      mcp = await stdioTarget(kv.path);
    }
    // Every Claude Code run also loads the 1 MiB handoff page by page (compat_budget.ts). Other
    // CLIs are left out: Gemini CLI masks earlier large results in its history, which the stub
    // would count as results of more steps.
    const plan = [
      ...planOf(seed),
      ...(agent.startsWith("claude") ? largeSteps(seed.largePages) : []),
    ];
    const stub = await startStubModel({ plan });
    cleanups.push(() => stub.close());
    const recorder = startDialRecorder();
    cleanups.push(() => Promise.resolve(recorder.close()));
    const run = await RUNNERS[agent]({
      clients,
      modelUrl: agent === "codex" ? stub.openaiUrl : stub.url,
      mcp,
      prompt: "Work through the handoff-mcp plan.",
      proxy: recorder.url,
    });
    cleanups.push(() => run.cleanup());
    assert.equal(run.code, 0, `${label}: exit ${run.code}\n${run.stdout}\n${run.stderr}`);
    const failedCalls = agent === "codex" ? codexFailures(run.stdout) : [];
    return { label, plan, seed, run, stub, dials: [...recorder.dials], failedCalls };
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  }
}

/** The CLI reached nothing but loopback and called nothing the stub does not speak. */
export function assertStayedLocal(outcome: CaseOutcome): void {
  assert.deepEqual(outcome.dials, [], `${outcome.label} dialed beyond loopback`);
  if (outcome.run.connects) {
    assert.deepEqual(outcome.run.connects, [], `${outcome.label} connected beyond loopback`);
  }
  assert.deepEqual(
    outcome.stub.unknown().map((r) => `${r.method} ${r.path}`),
    [],
    `${outcome.label} called model API paths the stub does not answer`,
  );
}
