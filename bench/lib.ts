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
