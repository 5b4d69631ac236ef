/**
 * The `http` group: 16 concurrent SDK clients (in 4 client processes) against `main.ts` in its
 * own process on a KV file, over Streamable HTTP. Measures server CPU per call for ping,
 * get_state, add_task and sequentialthinking; one hot project against 16 projects; get_state with
 * 500 open follow-ups against 3; and the server's memory when idle after the load.
 */

import { DEFAULT_FOCUS_LIMITS } from "../src/focus/settings.ts";
import { addTask, setFocus, setNorthStar } from "../src/focus/store.ts";
import { tempKvPath } from "../tests/support/harness.ts";
import { type BenchGroup, goal, type GroupReport, median, medianOf, round } from "./lib.ts";
import { type CaseResult, type CaseSpec, runLoad } from "./load.ts";
import { startServerProcess } from "./process.ts";

const REPEATS = 3;
const TEXT =
  "Consider the trade-off between caching the hot reads and adding the missing index: the cache hides latency but needs invalidation on every write, while the index fixes the cause.";

/** Seeds the projects the read cases use, before the server starts. */
async function seed(path: string): Promise<void> {
  const kv = await Deno.openKv(path);
  try {
    const limits = DEFAULT_FOCUS_LIMITS;
    for (const [projectId, followUps] of [["bench-3", 3], ["bench-500", 500]] as const) {
      await setNorthStar(kv, limits, projectId, "Serve a tool call in a fraction of a millisecond");
      await setFocus(kv, limits, projectId, "Measure it", "numbers beat guesses");
      for (let i = 0; i < followUps; i++) {
        await addTask(
          kv,
          limits,
          projectId,
          `follow-up ${i}: tidy the notes`,
          i % 2 ? "record" : "cleanup",
        );
      }
    }
  } finally {
    kv.close();
  }
}

const CASES: Record<string, CaseSpec> = {
  ping: { call: { tool: "ping" } },
  get_state: { call: { tool: "get_state", args: { project_id: "bench-3" } } },
  get_state_500: { call: { tool: "get_state", args: { project_id: "bench-500" } } },
  add_task_16_projects: {
    call: {
      tool: "add_task",
      args: { project_id: "spread-${client}", body: "a step", kind: "main" },
    },
  },
  add_task_1_project: {
    call: { tool: "add_task", args: { project_id: "hot", body: "a step", kind: "main" } },
  },
  sequentialthinking: {
    setup: {
      tool: "sequentialthinking",
      args: { thought: TEXT, nextThoughtNeeded: true, thoughtNumber: 1, totalThoughts: 100_000 },
      keep: "sequenceId",
    },
    call: {
      tool: "sequentialthinking",
      args: {
        thought: TEXT,
        nextThoughtNeeded: true,
        thoughtNumber: "$n",
        totalThoughts: 100_000,
        sequenceId: "$kept",
      },
    },
  },
};

/** Runs the group: three repeats of the interleaved load on one server, medians of each. */
async function run(): Promise<GroupReport> {
  const kvFile = await tempKvPath();
  await seed(kvFile.path);
  const server = await startServerProcess({ KV_PATH: kvFile.path });
  try {
    const rssStart = await server.rssMiB();
    const repeats: Record<string, CaseResult>[] = [];
    for (let i = 0; i < REPEATS; i++) {
      console.error(`bench http: repeat ${i + 1} of ${REPEATS}…`);
      repeats.push(await runLoad(server, CASES));
    }
    const rssAfterLoad = await server.rssMiB();
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const rssIdle = await server.rssMiB();
    const cases = Object.fromEntries(
      Object.keys(CASES).map((name) => [
        name,
        medianOf(repeats.map((r) => ({ ...r[name] }) as unknown as Record<string, number>)),
      ]),
    ) as unknown as Record<string, CaseResult>;
    const ratio = (f: (r: Record<string, CaseResult>) => number) => round(median(repeats.map(f)));
    const hot = (field: keyof CaseResult) =>
      ratio((r) => r.add_task_1_project[field] / r.add_task_16_projects[field]);
    const goals = [
      goal("ping: server CPU per call (ms)", cases.ping.cpu_ms_per_call, "max", 0.25),
      goal("get_state: server CPU per call (ms)", cases.get_state.cpu_ms_per_call, "max", 0.4),
      goal(
        "add_task: server CPU per call (ms)",
        cases.add_task_16_projects.cpu_ms_per_call,
        "max",
        0.6,
      ),
      goal(
        "sequentialthinking: server CPU per call (ms)",
        cases.sequentialthinking.cpu_ms_per_call,
        "max",
        0.6,
      ),
      goal("hot key: throughput, 1 project / 16 projects", hot("calls_per_s"), "min", 0.5),
      goal("hot key: CPU per write, 1 project / 16 projects", hot("cpu_ms_per_call"), "max", 1.25),
      goal("hot key: p99, 1 project / 16 projects", hot("p99_ms"), "max", 2),
      goal(
        "get_state CPU per call, 500 / 3 open follow-ups",
        ratio((r) => r.get_state_500.cpu_ms_per_call / r.get_state.cpu_ms_per_call),
        "max",
        1.5,
      ),
      goal("server RSS idle after the load (MiB)", rssIdle, "max", 120),
    ];
    return {
      what:
        "16 SDK clients in 4 processes, Streamable HTTP on loopback, main.ts in its own process on a KV file; cases alternate in rounds of 10 calls per client after 2 warmup rounds; medians of 3 repeats",
      goals,
      cases,
      ratios: {
        get_state_500_vs_3_p50: ratio((r) => r.get_state_500.p50_ms / r.get_state.p50_ms),
      },
      rss_mib: { start: rssStart, after_load: rssAfterLoad, idle_after_load: rssIdle },
    };
  } finally {
    await server.close();
    await kvFile.cleanup();
  }
}

/** The `http` benchmark group. */
export const httpGroup: BenchGroup = {
  name: "http",
  what: "16 concurrent clients over Streamable HTTP: server CPU per call, hot key, RSS",
  run,
};
