/**
 * The `switches` group: what each speed mechanism the server keeps earns on its goal, measured
 * by turning it off (`BENCH_SWITCHES`, `src/kit/speed_switches.ts`). One `main.ts` per setting,
 * each on its own KV file seeded alike, all started at once; the same 16-client load as the
 * `http` group runs on each in turn, and the turns repeat, so noise lands on every setting alike.
 * Each row is server CPU per call, off ÷ on, and must reach 1.5: a mechanism that does
 * not goes (the house rule).
 */

import { CASES, seed } from "./http.ts";
import { tempKvPath } from "../tests/support/harness.ts";
import { type BenchGroup, goal, type GroupReport, median, medianOf, round } from "./lib.ts";
import { type CaseResult, runLoad } from "./load.ts";
import { type ServerProcess, startServerProcess } from "./process.ts";

const REPEATS = 3;
/** The least a mechanism must earn on its goal to stay. */
const EARNS = 1.5;
/** The cases the rows need, as the `http` group runs them. */
type CaseName =
  | "add_task_16_projects"
  | "add_task_1_project"
  | "get_state_500"
  | "sequentialthinking";

/** Each setting: what `BENCH_SWITCHES` says, and the cases its rows need. */
const SETTINGS: Record<string, { switches: string; cases: CaseName[] }> = {
  on: {
    switches: "",
    cases: ["add_task_16_projects", "sequentialthinking", "add_task_1_project", "get_state_500"],
  },
  group_commit_off: {
    switches: "off:group_commit",
    cases: ["add_task_16_projects", "sequentialthinking"],
  },
  key_batch_off: { switches: "off:key_batch", cases: ["add_task_1_project"] },
  state_cache_off: { switches: "off:state_cache", cases: ["get_state_500"] },
};

/** One row: a mechanism, its goal, and how the ratio is taken from two settings' results. */
interface Row {
  name: string;
  with: string;
  without: string;
  case: CaseName;
}

const ROWS: Row[] = [
  {
    name: "group_commit: add_task CPU per call, 16 projects",
    with: "on",
    without: "group_commit_off",
    case: "add_task_16_projects",
  },
  {
    name: "group_commit: sequentialthinking CPU per call",
    with: "on",
    without: "group_commit_off",
    case: "sequentialthinking",
  },
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
];

type Results = Record<string, Record<string, CaseResult>>;

/** One row's ratio from one repeat's results. */
function rowRatio(row: Row, r: Results): number {
  const a = r[row.with][row.case];
  const b = r[row.without][row.case];
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
      servers[name] = await startServerProcess({
        KV_PATH: file.path,
        ...(setting.switches === "" ? {} : { BENCH_SWITCHES: setting.switches }),
      });
    }
    const repeats: Results[] = [];
    for (let i = 0; i < REPEATS; i++) {
      const results: Results = {};
      // Each repeat starts with another setting, so none always runs first.
      const order = Object.entries(SETTINGS);
      for (const [name, setting] of [...order.slice(i), ...order.slice(0, i)]) {
        console.error(`bench switches: repeat ${i + 1} of ${REPEATS}, ${name}…`);
        const cases = Object.fromEntries(setting.cases.map((c) => [c, CASES[c]]));
        results[name] = await runLoad(servers[name], cases);
      }
      repeats.push(results);
    }
    const medians = Object.fromEntries(
      Object.entries(SETTINGS).map(([name, setting]) => [
        name,
        Object.fromEntries(setting.cases.map((c) => [
          c,
          medianOf(repeats.map((r) => ({ ...r[name][c] }) as unknown as Record<string, number>)),
        ])),
      ]),
    );
    return {
      what:
        "one main.ts per BENCH_SWITCHES setting on its own KV file, 16 SDK clients in 4 processes per load, settings in turn, medians of 3 repeats",
      goals: ROWS.map((row) =>
        goal(
          `${row.name}, off vs on (×)`,
          round(median(repeats.map((r) => rowRatio(row, r)))),
          "min",
          EARNS,
        )
      ),
      settings: Object.fromEntries(Object.entries(SETTINGS).map(([n, s]) => [n, s.switches])),
      cases: medians,
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
