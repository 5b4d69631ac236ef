/**
 * `deno task bench [group…]`: runs the benchmark groups (all by default), prints each goal as a
 * table (measured, target, met) and writes everything as JSON to bench/results/latest.json.
 * A group is a `BenchGroup` (bench/lib.ts) listed in GROUPS; see bench/README.md.
 */

import { definitionsGroup } from "./definitions.ts";
import { chatsGroup } from "./chats.ts";
import { erasGroup } from "./eras.ts";
import { handoffGroup } from "./handoff.ts";
import { httpGroup } from "./http.ts";
import { liveGroup } from "./live.ts";
import { memoryGroup } from "./memory.ts";
import { oauthGroup } from "./oauth.ts";
import { rssGroup } from "./rss.ts";
import { switchesGroup } from "./switches.ts";
import { searchGroup } from "./search.ts";
import { tableGroup } from "./table.ts";
import {
  type BenchGroup,
  type Goal,
  goalTable,
  type GroupReport,
  type GroupVerdict,
  verdictTable,
} from "./lib.ts";
import { thinkingGroup } from "./thinking.ts";

const GROUPS: BenchGroup[] = [
  erasGroup,
  httpGroup,
  thinkingGroup,
  tableGroup,
  liveGroup,
  handoffGroup,
  oauthGroup,
  memoryGroup,
  definitionsGroup,
  chatsGroup,
  rssGroup,
  switchesGroup,
  searchGroup,
];

const names = GROUPS.map((g) => g.name);
const asked = Deno.args.filter((a) => !a.startsWith("--"));
const chosen = asked.length > 0 ? asked : names;
const unknown = chosen.filter((name) => !names.includes(name));
if (unknown.length > 0) {
  console.error(`Unknown bench group ${unknown.join(", ")}; choose from ${names.join(", ")}`);
  Deno.exit(2);
}

/** The machine's load averages, so a reader can judge the figures. */
async function loadAverage(): Promise<number[]> {
  const text = await Deno.readTextFile("/proc/loadavg").catch(() => "");
  return text.split(" ").slice(0, 3).map(Number);
}

const started = performance.now();
const results: Record<string, unknown> = {
  at: new Date().toISOString(),
  deno: Deno.version.deno,
  cpus: navigator.hardwareConcurrency,
  load_average_before: await loadAverage(),
};
const goals: Goal[] = [];
/** Per group: whether its goals hold, how many, its seconds and load; a failed group says why. */
const verdicts: GroupVerdict[] = [];
for (const group of GROUPS.filter((g) => chosen.includes(g.name))) {
  console.error(`bench: running ${group.name}: ${group.what}`);
  const groupStarted = performance.now();
  // A group that fails is reported as failed (its goals unmet), and the others still run.
  let report: GroupReport;
  let error: string | undefined;
  try {
    report = await group.run();
  } catch (e) {
    error = e instanceof Error ? e.message : String(e);
    console.error(`bench: ${group.name} failed: ${error}`);
    report = { goals: [], error };
  }
  const verdict: GroupVerdict = {
    group: group.name,
    goals: report.goals.length,
    met: report.goals.filter((g) => g.met).length,
    goals_met: error === undefined && report.goals.every((g) => g.met),
    seconds: Math.round((performance.now() - groupStarted) / 1000),
    load_average_after: await loadAverage(),
    ...(error === undefined ? {} : { error }),
  };
  results[group.name] = { ...report, verdict };
  verdicts.push(verdict);
  goals.push(...report.goals.map((g) => ({ ...g, name: `${group.name}: ${g.name}` })));
}
results.load_average_after = await loadAverage();
results.seconds = Math.round((performance.now() - started) / 1000);
results.groups = verdicts;
results.goals_met = verdicts.every((v) => v.goals_met);
const text = JSON.stringify(results, null, 2);
await Deno.mkdir(new URL("./results/", import.meta.url), { recursive: true });
await Deno.writeTextFile(new URL("./results/latest.json", import.meta.url), text + "\n");
if (Deno.args.includes("--json")) console.log(text);
console.log(goalTable(goals));
console.log("");
console.log(verdictTable(verdicts));
console.log(
  `\nload average before ${(results.load_average_before as number[]).join(" ")}, after ${
    (results.load_average_after as number[]).join(" ")
  }; ${results.seconds} s; details in bench/results/latest.json`,
);
// A group that could not finish fails the run, as it did when it stopped the run.
if (verdicts.some((v) => v.error !== undefined)) Deno.exit(1);
