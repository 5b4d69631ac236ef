/**
 * The `switches` group: what each speed mechanism the server keeps earns on its goal, measured
 * by turning it off (`BENCH_SWITCHES`, `src/kit/speed_switches.ts`). One `main.ts` per setting,
 * each on its own KV file seeded alike, all started at once; the same 16-client load as the
 * `http` group runs on each in turn, and the turns repeat, so noise lands on every setting alike.
 * Each row is server CPU per call, off ÷ on, and must reach 1.5: a mechanism that does
 * not goes (the house rule). The idle collection (`src/idle_collect.ts`, a setting of its own,
 * `IDLE_COLLECT_MIB=0`) gets a row too: RSS 5 s after the load, off ÷ on.
 */

import { CASES, seed } from "./http.ts";
import { tempKvPath } from "../tests/support/harness.ts";
import { type BenchGroup, goal, type GroupReport, median, medianOf, round } from "./lib.ts";
import { type CaseResult, runLoad } from "./load.ts";
import { type ServerProcess, startServerProcess, waitQuiet } from "./process.ts";

const REPEATS = 3;
/** The least a mechanism must earn on its goal to stay. */
const EARNS = 1.5;
/** The cases the rows need, as the `http` group runs them. */
type CaseName =
  | "add_task_16_projects"
  | "add_task_1_project"
  | "get_state_500"
  | "sequentialthinking";

/** When a setting's memory is read after its load (the `http` group's goal, issue 25). */
const RSS_AFTER_MS = 5_000;
const ALL: CaseName[] = [
  "add_task_16_projects",
  "sequentialthinking",
  "add_task_1_project",
  "get_state_500",
];

/**
 * Each setting: the server's environment (`BENCH_SWITCHES`, or another setting), the cases its
 * rows need, and whether its memory is read `RSS_AFTER_MS` after each load.
 */
const SETTINGS: Record<string, { env: Record<string, string>; cases: CaseName[]; rss?: true }> = {
  on: { env: {}, cases: ALL, rss: true },
  key_batch_off: { env: { BENCH_SWITCHES: "off:key_batch" }, cases: ["add_task_1_project"] },
  state_cache_off: { env: { BENCH_SWITCHES: "off:state_cache" }, cases: ["get_state_500"] },
  idle_collect_off: { env: { IDLE_COLLECT_MIB: "0" }, cases: ALL, rss: true },
};

/** One row: a mechanism, its goal, and how the ratio is taken from two settings' results. */
interface Row {
  name: string;
  with: string;
  without: string;
  /** The case measured (`rss` rows: the whole load). */
  case: CaseName;
  /** `rss`: the server's memory `RSS_AFTER_MS` after the load, without ÷ with; else CPU per call. */
  by?: "rss";
}

const ROWS: Row[] = [
  {
    name:
      "key_batch (turns on a hot key, each carrying the writes waiting): add_task CPU per write, 1 hot project",
    with: "on",
    without: "key_batch_off",
    case: "add_task_1_project",
  },
  {
    name: "state_cache: get_state CPU per call, 500 open follow-ups",
    with: "on",
    without: "state_cache_off",
    case: "get_state_500",
  },
  {
    name: `idle_collect: RSS ${RSS_AFTER_MS / 1000} s after the load`,
    with: "on",
    without: "idle_collect_off",
    case: "add_task_16_projects",
    by: "rss",
  },
];

/** One setting's load in one repeat: each case's result, and its memory after the load. */
type Results = Record<string, { cases: Record<string, CaseResult>; rssMiB?: number }>;

/** One row's ratio from one repeat's results. */
function rowRatio(row: Row, r: Results): number {
  if (row.by === "rss") return r[row.without].rssMiB! / r[row.with].rssMiB!;
  const a = r[row.with].cases[row.case];
  const b = r[row.without].cases[row.case];
  return b.cpu_ms_per_call / a.cpu_ms_per_call;
}

/** Runs the group: every setting's server at once, the load on each in turn, three times. */
async function run(): Promise<GroupReport> {
  const files: { cleanup(): Promise<void> }[] = [];
  const servers: Record<string, ServerProcess> = {};
  try {
    for (const [name, setting] of Object.entries(SETTINGS)) {
      const file = await tempKvPath();
      files.push(file);
      if (setting.cases.includes("get_state_500")) await seed(file.path);
      servers[name] = await startServerProcess({ KV_PATH: file.path, ...setting.env });
    }
    // Each server first indexes its seed for search; the loads start once all are quiet.
    for (const server of Object.values(servers)) await waitQuiet(server);
    const repeats: Results[] = [];
    for (let i = 0; i < REPEATS; i++) {
      const results: Results = {};
      // Each repeat starts with another setting, so none always runs first.
      const order = Object.entries(SETTINGS);
      for (const [name, setting] of [...order.slice(i), ...order.slice(0, i)]) {
        console.error(`bench switches: repeat ${i + 1} of ${REPEATS}, ${name}…`);
        const cases = Object.fromEntries(setting.cases.map((c) => [c, CASES[c]]));
        results[name] = { cases: await runLoad(servers[name], cases) };
        if (setting.rss) {
          await new Promise((resolve) => setTimeout(resolve, RSS_AFTER_MS));
          results[name].rssMiB = await servers[name].rssMiB();
        }
      }
      repeats.push(results);
    }
    const medians = Object.fromEntries(
      Object.entries(SETTINGS).map(([name, setting]) => [
        name,
        Object.fromEntries(setting.cases.map((c) => [
          c,
          medianOf(
            repeats.map((r) => ({ ...r[name].cases[c] }) as unknown as Record<string, number>),
          ),
        ])),
      ]),
    );
    const rss = Object.fromEntries(
      Object.entries(SETTINGS).filter(([, s]) => s.rss).map(([name]) => [
        name,
        repeats.map((r) => r[name].rssMiB!),
      ]),
    );
    return {
      what:
        "one main.ts per setting (BENCH_SWITCHES, IDLE_COLLECT_MIB) on its own KV file, 16 SDK clients in 4 processes per load, settings in turn, medians of 3 repeats",
      goals: ROWS.map((row) =>
        goal(
          `${row.name}, off vs on (×)`,
          round(median(repeats.map((r) => rowRatio(row, r)))),
          "min",
          EARNS,
        )
      ),
      settings: Object.fromEntries(Object.entries(SETTINGS).map(([n, s]) => [n, s.env])),
      cases: medians,
      [`rss_mib_${RSS_AFTER_MS / 1000}_s_after_each_load`]: rss,
      // What idle collection costs in CPU (a detail): each server idles while the others load,
      // so the one that collects starts each load after a collection (kit/garbage.ts says what
      // that costs the code that runs next). On ÷ off, per call, medians of the per-repeat
      // ratios (after the load's 2 warmup rounds, as every case here).
      idle_collect_cpu_on_vs_off: Object.fromEntries(
        (["add_task_16_projects", "sequentialthinking"] as const).map((c) => [
          c,
          round(
            median(
              repeats.map((r) =>
                r.on.cases[c].cpu_ms_per_call / r.idle_collect_off.cases[c].cpu_ms_per_call
              ),
            ),
          ),
        ]),
      ),
    };
  } finally {
    await Promise.all(Object.values(servers).map((s) => s.close()));
    await Promise.all(files.map((f) => f.cleanup()));
  }
}

/** The `switches` benchmark group. */
export const switchesGroup: BenchGroup = {
  name: "switches",
  what: "each speed mechanism turned off (BENCH_SWITCHES): its effect on its goal, ≥ 1.5× to stay",
  run,
};
