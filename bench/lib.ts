/** Shared benchmark helpers: timing loops and summaries. Output is machine-readable JSON. */

/** Median, p90 and sample count of a list of milliseconds. */
export interface Summary {
  median_ms: number;
  p90_ms: number;
  samples: number;
}

/** Summarises samples in milliseconds. */
export function summarize(samples: number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  const mid = sorted.length / 2;
  const median = sorted.length % 2 === 1
    ? sorted[Math.floor(mid)]
    : (sorted[mid - 1] + sorted[mid]) / 2;
  return { median_ms: round(median), p90_ms: round(at(0.9)), samples: sorted.length };
}

/** Runs `fn` `warmup` times unmeasured, then `iterations` times measured, one after another. */
export async function measure(
  fn: () => Promise<unknown>,
  iterations: number,
  warmup = Math.min(20, iterations),
): Promise<Summary> {
  for (let i = 0; i < warmup; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const start = performance.now();
    await fn();
    samples.push(performance.now() - start);
  }
  return summarize(samples);
}

/** Rounds to microseconds, for readable JSON. */
export function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/** `a / b` rounded to two decimals. */
export function ratio(a: Summary, b: Summary): number {
  return Math.round((a.median_ms / b.median_ms) * 100) / 100;
}

/**
 * Measures several cases in alternating rounds, so drift on a noisy machine (another process, a
 * GC, thermal changes) spreads over every case instead of landing on one.
 */
export async function measureInterleaved(
  cases: Record<string, () => Promise<unknown>>,
  rounds: number,
  perRound: number,
): Promise<Record<string, Summary>> {
  const samples: Record<string, number[]> = {};
  for (const [name, fn] of Object.entries(cases)) {
    samples[name] = [];
    for (let i = 0; i < 10; i++) await fn();
  }
  for (let r = 0; r < rounds; r++) {
    for (const [name, fn] of Object.entries(cases)) {
      for (let i = 0; i < perRound; i++) {
        const start = performance.now();
        await fn();
        samples[name].push(performance.now() - start);
      }
    }
  }
  return Object.fromEntries(Object.entries(samples).map(([name, s]) => [name, summarize(s)]));
}

/** The `q` quantile (0–1) of `samples`, nearest rank. */
export function percentile(samples: readonly number[], q: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

/** The median of `values`. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length / 2;
  return sorted.length % 2 === 1 ? sorted[Math.floor(mid)] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** One goal of a benchmark group: what was measured against what is allowed. */
export interface Goal {
  /** What is measured, e.g. `ping server CPU per call (ms)`. */
  name: string;
  /** The median over the repeats. */
  measured: number;
  /** The bound the measurement must meet. */
  limit: number;
  /** `max`: measured must be at most `limit`; `min`: at least. */
  bound: "max" | "min";
  /** True when the bound holds. */
  met: boolean;
}

/** A goal from its measurement and bound. */
export function goal(name: string, measured: number, bound: "max" | "min", limit: number): Goal {
  const value = Math.round(measured * 1000) / 1000;
  return {
    name,
    measured: value,
    limit,
    bound,
    met: bound === "max" ? value <= limit : value >= limit,
  };
}

/** The goals as an aligned text table. */
export function goalTable(goals: readonly Goal[]): string {
  const rows = [
    ["goal", "measured", "target", "met"],
    ...goals.map((g) => [
      g.name,
      String(g.measured),
      `${g.bound === "max" ? "≤" : "≥"} ${g.limit}`,
      g.met ? "yes" : "NO",
    ]),
  ];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((cell, i) => cell.padEnd(widths[i])).join("  ").trimEnd())
    .join("\n");
}

/** How one group of a run came out, as `run.ts` prints it and keeps it in the JSON. */
export interface GroupVerdict {
  group: string;
  /** Goals the group has, and how many of them hold. */
  goals: number;
  met: number;
  /** Every goal holds and the group ran to the end (a group without goals holds trivially). */
  goals_met: boolean;
  seconds: number;
  /** The machine's load averages when the group ended. */
  load_average_after: number[];
  /** Why the group stopped, when it failed. */
  error?: string;
}

/** One line per group: whether its goals hold (and how many), its time and the load after it. */
export function verdictTable(verdicts: readonly GroupVerdict[]): string {
  return verdicts.map((v) => {
    const state = v.error !== undefined
      ? `FAILED (${v.error.split("\n")[0]})`
      : v.goals === 0
      ? "no goals"
      : `${v.goals_met ? "goals hold" : "goals NOT met"} (${v.met} of ${v.goals})`;
    return `${v.group.padEnd(12)} ${state}; ${v.seconds} s, load ${v.load_average_after.join(" ")}`;
  }).join("\n");
}

/** What a benchmark group returns: its goals, plus any detail worth keeping in the JSON. */
export interface GroupReport {
  goals: Goal[];
  [detail: string]: unknown;
}

/** A benchmark group `deno task bench <name>` can run (see bench/README.md). */
export interface BenchGroup {
  name: string;
  /** One line: what the group measures. */
  what: string;
  run(): Promise<GroupReport>;
}

/** Each of `metrics` as the median over `repeats` (objects of the same numeric fields). */
export function medianOf<T extends Record<string, number>>(repeats: readonly T[]): T {
  const keys = Object.keys(repeats[0]) as (keyof T)[];
  return Object.fromEntries(
    keys.map((k) => [k, round(median(repeats.map((r) => r[k] as number)))]),
  ) as T;
}
