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
import { type BenchGroup, type Goal, goalTable, type GroupReport } from "./lib.ts";
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
for (const group of GROUPS.filter((g) => chosen.includes(g.name))) {
  console.error(`bench: running ${group.name}: ${group.what}`);
  const report: GroupReport = await group.run();
  results[group.name] = report;
  goals.push(...report.goals.map((g) => ({ ...g, name: `${group.name}: ${g.name}` })));
}
results.load_average_after = await loadAverage();
results.seconds = Math.round((performance.now() - started) / 1000);
results.goals_met = goals.every((g) => g.met);
const text = JSON.stringify(results, null, 2);
await Deno.mkdir(new URL("./results/", import.meta.url), { recursive: true });
await Deno.writeTextFile(new URL("./results/latest.json", import.meta.url), text + "\n");
if (Deno.args.includes("--json")) console.log(text);
console.log(goalTable(goals));
console.log(
  `\nload average before ${(results.load_average_before as number[]).join(" ")}, after ${
    (results.load_average_after as number[]).join(" ")
  }; ${results.seconds} s; details in bench/results/latest.json`,
);
