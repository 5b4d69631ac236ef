/**
 * The `http` group: 16 concurrent SDK clients (in 4 client processes) against `main.ts` in its
 * own process on a KV file, over Streamable HTTP. Measures server CPU per call for ping,
 * get_state, add_task and sequentialthinking; one hot project against 16 projects; get_state with
 * 500 open follow-ups, and with 1,000 finished tasks, against a project with 3 open follow-ups
 * and none finished; `get_state` against `ping` (issue 25); and the server's memory 5 s after
 * the load (issue 25: ≤ 120 MiB; `src/idle_collect.ts` gives the load's garbage back).
 */

import { DEFAULT_FOCUS_LIMITS } from "../src/focus/settings.ts";
import { addTask, completeTask, setFocus, setNorthStar } from "../src/focus/store.ts";
import { tempKvPath } from "../tests/support/harness.ts";
import { type BenchGroup, goal, type GroupReport, median, medianOf, round } from "./lib.ts";
import { type CaseResult, type CaseSpec, runLoad } from "./load.ts";
import { startServerProcess, waitQuiet } from "./process.ts";

const REPEATS = 3;
/** When the server's memory after the load is judged (issue 25), and how long it is followed. */
const AFTER_LOAD_MS = 5_000;
const IDLE_MS = 10_000;
const IDLE_STEP_MS = 1_000;
const TEXT =
  "Consider the trade-off between caching the hot reads and adding the missing index: the cache hides latency but needs invalidation on every write, while the index fixes the cause.";

/** Seeds the projects the read cases use, before the server starts. */
export async function seed(path: string): Promise<void> {
  const kv = await Deno.openKv(path);
  try {
    const limits = DEFAULT_FOCUS_LIMITS;
    const projects = [["bench-3", 3, 0], ["bench-500", 500, 0], ["bench-finished", 3, 1000]];
    for (const [projectId, open, finished] of projects as [string, number, number][]) {
      await setNorthStar(kv, limits, projectId, "Serve a tool call in a fraction of a millisecond");
      await setFocus(kv, limits, projectId, "Measure it", "numbers beat guesses");
      for (let i = 0; i < finished; i++) {
        const task = await addTask(kv, limits, projectId, `finished ${i}`, "cleanup");
        await completeTask(kv, task.id);
      }
      for (let i = 0; i < open; i++) {
        const kind = i % 2 ? "record" : "cleanup";
        await addTask(kv, limits, projectId, `follow-up ${i}: tidy the notes`, kind);
      }
    }
  } finally {
    kv.close();
  }
}

/** The cases of the load, by name (the `switches` group runs some of them too). */
export const CASES: Record<string, CaseSpec> = {
  ping: { call: { tool: "ping" } },
  get_state: { call: { tool: "get_state", args: { project_id: "bench-3" } } },
  get_state_500: { call: { tool: "get_state", args: { project_id: "bench-500" } } },
  get_state_1000_finished: {
    call: { tool: "get_state", args: { project_id: "bench-finished" } },
  },
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
    // The server first indexes the seed for search (the `search` group measures that); the
    // per-call figures start once it is done.
    const indexSeconds = await waitQuiet(server);
    const rssStart = await server.rssMiB();
    const repeats: Record<string, CaseResult>[] = [];
    for (let i = 0; i < REPEATS; i++) {
      console.error(`bench http: repeat ${i + 1} of ${REPEATS}…`);
      repeats.push(await runLoad(server, CASES));
    }
    // The memory a load leaves behind: V8's own reducer gives it back 8–10 s after allocation
    // stops, the server's idle collection (IDLE_COLLECT_MIB) within 2–3 s. Read every
    // second, judged AFTER_LOAD_MS after the last call.
    const rssAfterLoad = await server.rssMiB();
    const rssIdleSeries: number[] = [];
    for (let waited = 0; waited < IDLE_MS; waited += IDLE_STEP_MS) {
      await new Promise((resolve) => setTimeout(resolve, IDLE_STEP_MS));
      rssIdleSeries.push(await server.rssMiB());
    }
    const rssSettled = rssIdleSeries[AFTER_LOAD_MS / IDLE_STEP_MS - 1];
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
      goal(
        "get_state CPU per call, 1,000 finished tasks / none",
        ratio((r) => r.get_state_1000_finished.cpu_ms_per_call / r.get_state.cpu_ms_per_call),
        "max",
        1.5,
      ),
      goal(
        "get_state ÷ ping, server CPU per call",
        ratio((r) => r.get_state.cpu_ms_per_call / r.ping.cpu_ms_per_call),
        "max",
        1.3,
      ),
      goal(`server RSS ${AFTER_LOAD_MS / 1000} s after the load (MiB)`, rssSettled, "max", 120),
    ];
    return {
      what:
        "16 SDK clients in 4 processes, Streamable HTTP on loopback, main.ts in its own process on a KV file; cases alternate in rounds of 10 calls per client after 2 warmup rounds; medians of 3 repeats",
      goals,
      cases,
      ratios: {
        get_state_500_vs_3_p50: ratio((r) => r.get_state_500.p50_ms / r.get_state.p50_ms),
      },
      first_start_index_seconds: indexSeconds,
      rss_mib: {
        start: rssStart,
        after_load: rssAfterLoad,
        [`${AFTER_LOAD_MS / 1000}_s_after_load`]: rssSettled,
        [`every_${IDLE_STEP_MS / 1000}_s_after_load`]: rssIdleSeries,
      },
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
