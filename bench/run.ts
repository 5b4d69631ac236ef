/**
 * `deno task bench [toolset…]`: runs the benchmarks of each toolset (all by default) and prints
 * one JSON object with medians and ratios. Also written to bench/results/latest.json.
 */

import { benchFocus } from "./focus.ts";
import { benchHandoff } from "./handoff.ts";
import { benchOAuth } from "./oauth.ts";
import { benchTable } from "./table.ts";
import { benchThinking } from "./thinking.ts";

const SUITES: Record<string, () => Promise<Record<string, unknown>>> = {
  focus: benchFocus,
  handoff: benchHandoff,
  thinking: benchThinking,
  oauth: benchOAuth,
  table: benchTable,
};

const chosen = Deno.args.length > 0 ? Deno.args : Object.keys(SUITES);
const unknown = chosen.filter((name) => !(name in SUITES));
if (unknown.length > 0) {
  console.error(`Unknown bench suite ${unknown.join(", ")}; choose from ${Object.keys(SUITES)}`);
  Deno.exit(2);
}
const results: Record<string, unknown> = {
  at: new Date().toISOString(),
  deno: Deno.version.deno,
  cpus: navigator.hardwareConcurrency,
};
for (const name of chosen) {
  console.error(`bench: running ${name}…`);
  results[name] = await SUITES[name]();
}
const text = JSON.stringify(results, null, 2);
await Deno.mkdir(new URL("./results/", import.meta.url), { recursive: true });
await Deno.writeTextFile(new URL("./results/latest.json", import.meta.url), text + "\n");
console.log(text);
