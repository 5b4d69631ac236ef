/**
 * The compatibility suite: the real Claude Code (pinned, and the newest release, whose model must
 * load MCP tools through ToolSearch first), Gemini CLI and Codex CLIs (installed from npm into
 * .cache/clients/) drive the server over Streamable HTTP and stdio, each through
 * the stub model on loopback. Asserted from what each CLI sent its model: every call of a plan
 * covering all toolsets succeeds, Gemini's `wait_for_previous` does no harm, and text another
 * session stored reaches the model with the untrusted-data notice before it.
 */

import assert from "node:assert/strict";
import { installClients } from "./support/clients.ts";
import {
  type AgentName,
  assertStayedLocal,
  type CaseOutcome,
  runCase,
} from "./support/compat_case.ts";
import { assertPlanSucceeded, assertUntrustedMarked } from "./support/compat_plan.ts";
import { assertLargePagesWhole } from "./support/compat_budget.ts";

const clients = await installClients();
if ("skip" in clients) console.warn(clients.skip);
const ignore = "skip" in clients;

/**
 * With `COMPAT_DUMP=<folder>`, writes every request each CLI sent its model and the tool results
 * as the model saw them, one JSON file per case: what the README's client section reports.
 */
async function dump(outcomes: CaseOutcome[]): Promise<CaseOutcome[]> {
  const folder = Deno.env.get("COMPAT_DUMP");
  if (!folder) return outcomes;
  await Deno.mkdir(folder, { recursive: true });
  for (const o of outcomes) {
    const file = `${folder}/${o.label.replaceAll(" ", "-")}.json`;
    const data = { label: o.label, results: o.stub.toolResults(), requests: o.stub.requests };
    await Deno.writeTextFile(file, JSON.stringify(data, null, 1));
  }
  return outcomes;
}

/** Each CLI's two runs, made once and read by both of its tests. */
const runs = new Map<AgentName, Promise<CaseOutcome[]>>();
function outcomesOf(agent: AgentName): Promise<CaseOutcome[]> {
  if ("skip" in clients) throw new Error(clients.skip);
  let pending = runs.get(agent);
  if (!pending) {
    // Both transports at once: the two runs share nothing but the installed CLI.
    pending = Promise.all([runCase(clients, agent, "http"), runCase(clients, agent, "stdio")])
      .then(dump);
    runs.set(agent, pending);
  }
  return pending;
}

/** Runs `check` on each outcome and fails once with every transport's failure, not the first. */
async function eachOutcome(agent: AgentName, check: (o: CaseOutcome) => void): Promise<void> {
  const failures: string[] = [];
  for (const outcome of await outcomesOf(agent)) {
    try {
      check(outcome);
    } catch (e) {
      const tail = (text: string) => text.slice(-1500).trim() || "(empty)";
      failures.push(
        `${(e as Error).message}\n--- ${outcome.label}: the CLI's stdout (end)\n${
          tail(outcome.run.stdout)
        }\n--- its stderr (end)\n${tail(outcome.run.stderr)}`,
      );
    }
  }
  assert.deepEqual(failures, [], failures.join("\n\n"));
}

for (const agent of ["claude", "claude-newest", "gemini", "codex"] as AgentName[]) {
  Deno.test({
    name: `compat: ${agent} runs a plan covering every toolset over HTTP and stdio`,
    ignore,
    fn: () =>
      eachOutcome(agent, (outcome) => {
        const results = outcome.stub.toolResults();
        assertStayedLocal(outcome);
        assertPlanSucceeded(results, outcome.plan, outcome.label);
        assert.deepEqual(
          outcome.failedCalls,
          [],
          `${outcome.label}: the CLI reported failed calls`,
        );
        if (agent === "claude-newest") {
          // Its model sees the MCP tools by name only and must load them first: the run went
          // through ToolSearch, and what that returned named the plan's tools.
          const searched = outcome.stub.searchResults();
          assert.ok(searched.length > 0, `${outcome.label}: no ToolSearch step was needed`);
          assert.ok(
            searched.every((r) => !r.isError && r.text.includes("mcp__handoff__get_state")),
            `${outcome.label}: ToolSearch did not load the plan's tools: ${
              JSON.stringify(searched.map((r) => r.text))
            }`,
          );
        }
        if (agent === "gemini") {
          // The stub sets wait_for_previous as Gemini's model does; it must have been sent.
          assert.ok(
            results.slice(1).every((r) => r.args.wait_for_previous === true),
            `${outcome.label}: Gemini CLI no longer declares wait_for_previous`,
          );
        }
      }),
  });

  Deno.test({
    name: `compat: ${agent}'s model sees the untrusted-data notice before stored text`,
    ignore,
    fn: () =>
      eachOutcome(
        agent,
        (outcome) => assertUntrustedMarked(outcome.stub.toolResults(), outcome.label),
      ),
  });
}

// Every Claude Code run: its model receives each page of a 1 MiB handoff whole (issue 24).
for (const agent of ["claude", "claude-newest"] as AgentName[]) {
  Deno.test({
    name: `compat: ${agent}'s model receives each page of a 1 MiB handoff whole`,
    ignore,
    fn: () =>
      eachOutcome(agent, (outcome) => {
        const results = outcome.stub.toolResults();
        assertLargePagesWhole(results, outcome.seed.largePages, outcome.label);
      }),
  });
}
