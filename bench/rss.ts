/**
 * Issue 23's memory goals, read from `/proc` outside the processes measured:
 * - 32 concurrent 1 MiB `handoff_save`s (half 2025-era, half 2026-07-28, from a client process of
 *   their own) against `main.ts` on a KV file: the server's peak RSS above idle (sampled every
 *   10 ms), every save stored whole or refused busy, and RSS 10 s later; once with the default
 *   WRITE_BUDGET_BYTES, once with the budget out of the way (as before it existed), for contrast.
 * - `save-transcript` of a 200 MiB transcript in Claude Code's shape (tool-heavy, and one of
 *   400 KB pasted prompts): its peak RSS (VmHWM) above the same command's on a 50 KiB one; the
 *   goal is the worse of the two.
 * Idle is the server's RSS after start and two warm-up saves, before the burst.
 */

import { ROOT, tempKvPath } from "../tests/support/harness.ts";
import { type BenchGroup, goal, type GroupReport } from "./lib.ts";
import { startServerProcess } from "./process.ts";
import { writeTranscript } from "./transcript_gen.ts";

const MIB = 1024 * 1024;
const SAVES = 32;
const SAVE_BYTES = MIB - 1024;
const TRANSCRIPT_BYTES = 200 * MIB;

/** VmRSS or VmHWM of `pid` in MiB. */
async function procMiB(pid: number, field: "VmRSS" | "VmHWM"): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`).catch(() => "");
  const kib = Number(status.match(new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, "m"))?.[1] ?? 0);
  return Math.round((kib / 1024) * 10) / 10;
}

interface Tally {
  stored: number;
  busy: number;
  error: number;
  messages: string[];
}

/** Runs `count` concurrent saves from a client process. */
async function burst(url: string, count: number, prefix: string): Promise<Tally> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-net",
      "bench/rss_worker.ts",
      url,
      String(count),
      String(SAVE_BYTES),
      prefix,
    ],
    cwd: ROOT,
    stdout: "piped",
    stderr: "inherit",
  }).output();
  return JSON.parse(new TextDecoder().decode(out.stdout));
}

/** One burst against a fresh server started with `env`. */
async function saveBurst(env: Record<string, string>) {
  const kv = await tempKvPath();
  const server = await startServerProcess({ KV_PATH: kv.path, ...env });
  try {
    await burst(server.mcpUrl, 2, "warm");
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const idle = await server.rssMiB();
    let peak = idle;
    const poll = setInterval(async () => {
      peak = Math.max(peak, await procMiB(server.pid, "VmRSS"));
    }, 10);
    const cpuBefore = await server.cpuMs();
    const started = performance.now();
    const tally = await burst(server.mcpUrl, SAVES, "burst");
    const ms = Math.round(performance.now() - started);
    clearInterval(poll);
    // Read after the quiet spell's collection too: its cost belongs to the burst.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const cpuMs = Math.round((await server.cpuMs()) - cpuBefore);
    await new Promise((resolve) => setTimeout(resolve, 9_000));
    const after = await server.rssMiB();
    return {
      idle_mib: idle,
      peak_mib: peak,
      peak_above_idle_mib: Math.round(peak - idle),
      after_10s_above_idle_mib: Math.round(after - idle),
      burst_ms: ms,
      server_cpu_ms: cpuMs,
      ...tally,
    };
  } finally {
    await server.close();
    await kv.cleanup();
  }
}

/** Peak RSS (VmHWM, sampled until exit) of `save-transcript` on `transcript`. */
async function saveTranscriptPeak(transcript: string, kvPath: string) {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-env",
      "--allow-read",
      "--allow-write",
      "--allow-net",
      "--allow-run=git",
      "main.ts",
      "--save-transcript",
      "--transcript",
      transcript,
      "--session-id",
      "bench",
      "--project",
      "bench",
    ],
    cwd: ROOT,
    env: { KV_PATH: kvPath, NO_COLOR: "1", HOOK_TIMEOUT_MS: "600000" },
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let peak = 0;
  const poll = setInterval(async () => {
    peak = Math.max(peak, await procMiB(child.pid, "VmHWM"));
  }, 10);
  const started = performance.now();
  const out = await child.output();
  clearInterval(poll);
  return {
    peak_mib: peak,
    ms: Math.round(performance.now() - started),
    said: new TextDecoder().decode(out.stderr).trim(),
  };
}

async function transcriptRun() {
  const dir = await Deno.makeTempDir({ prefix: "bench-transcript-" });
  try {
    const small = `${dir}/small.jsonl`;
    await writeTranscript(small, 50 * 1024);
    const idle = await saveTranscriptPeak(small, `${dir}/small.kv`);
    const shapes: Record<string, unknown> = {};
    let worst = 0;
    for (const shape of ["tools", "pasted"] as const) {
      const big = `${dir}/${shape}.jsonl`;
      const bytes = await writeTranscript(big, TRANSCRIPT_BYTES, shape);
      const large = await saveTranscriptPeak(big, `${dir}/${shape}.kv`);
      await Deno.remove(big);
      const above = Math.round(large.peak_mib - idle.peak_mib);
      worst = Math.max(worst, above);
      shapes[shape] = {
        transcript_bytes: bytes,
        peak_mib: large.peak_mib,
        peak_above_idle_mib: above,
        ms: large.ms,
        said: large.said,
      };
    }
    return { small_peak_mib: idle.peak_mib, peak_above_idle_mib: worst, ...shapes };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

export const rssGroup: BenchGroup = {
  name: "rss",
  what: "issue 23: 32 concurrent 1 MiB handoff_saves (server RSS peak and 10 s after, " +
    "WRITE_BUDGET_BYTES default vs none); save-transcript of a 200 MiB transcript (peak RSS)",
  async run(): Promise<GroupReport> {
    const budgeted = await saveBurst({});
    const unbounded = await saveBurst({ WRITE_BUDGET_BYTES: String(1024 * MIB) });
    const transcript = await transcriptRun();
    const whole = budgeted.stored + budgeted.busy === SAVES && budgeted.error === 0 ? 1 : 0;
    return {
      goals: [
        goal(
          "32 × 1 MiB saves: peak RSS above idle (MiB)",
          budgeted.peak_above_idle_mib,
          "max",
          200,
        ),
        goal(
          "32 × 1 MiB saves: RSS above idle 10 s after (MiB)",
          budgeted.after_10s_above_idle_mib,
          "max",
          50,
        ),
        goal("32 × 1 MiB saves: each stored or refused busy (1 = all)", whole, "min", 1),
        goal(
          "save-transcript 200 MiB: peak RSS above a 50 KiB one (MiB)",
          transcript.peak_above_idle_mib,
          "max",
          150,
        ),
      ],
      saves_with_budget: budgeted,
      saves_without_budget: unbounded,
      transcript,
    };
  },
};
