/**
 * The `thinking` group: `sequentialthinking` round trips over stdio, ours against the standard
 * npm server (in memory, on Node as `npx` users run it, else on Deno), in the same run. Ours runs
 * twice: on `:memory:` KV (our path outside storage) and on a KV file (durable: one commit with
 * an fsync per thought), and the cost of one single-key commit on a KV file is timed alongside.
 * Calls alternate between the subjects one by one so every subject sees the same machine load.
 */

import type { Client } from "../src/client/sdk_client.ts";
import { connectStdio, tempKvPath } from "../tests/support/harness.ts";
import {
  connectStandardThinking,
  nodeAvailable,
  STANDARD_THINKING_PACKAGE,
} from "../tests/support/standard_thinking.ts";
import { type BenchGroup, goal, type GroupReport, median, round } from "./lib.ts";

type McpClient = InstanceType<typeof Client>;

const WARMUP = 50;
const REPEATS = 3;
const CALLS = 300;
const TEXT =
  "Consider the trade-off between caching the hot reads and adding the missing index: the cache hides latency but needs invalidation on every write, while the index fixes the cause. Measure p99 before and after each change, and keep the simpler fix if both meet the target. ";

/** One server under test and the sequence it writes to (ours only). */
interface Subject {
  name: string;
  client: McpClient;
  sequenceId?: string;
}

function args(n: number, subject: Subject): Record<string, unknown> {
  const base: Record<string, unknown> = {
    thought: `${n}. ${TEXT}`,
    nextThoughtNeeded: true,
    thoughtNumber: n,
    totalThoughts: WARMUP + REPEATS * CALLS + 1,
  };
  if (subject.sequenceId) base.sequenceId = subject.sequenceId;
  return base;
}

async function timedCall(subject: Subject, n: number): Promise<number> {
  const start = performance.now();
  const result = await subject.client.callTool({
    name: "sequentialthinking",
    arguments: args(n, subject),
  });
  const elapsed = performance.now() - start;
  if (result.isError) throw new Error(`${subject.name} failed: ${JSON.stringify(result)}`);
  if (n === 1 && subject.name.startsWith("ours")) {
    subject.sequenceId = String((result.structuredContent as { sequenceId: string }).sequenceId);
  }
  return elapsed;
}

/** Runs the group. */
async function run(): Promise<GroupReport> {
  const kvFile = await tempKvPath();
  const commitFile = await tempKvPath();
  const commitKv = await Deno.openKv(commitFile.path);
  const runtime = (await nodeAvailable()) ? "node" : "deno";
  const subjects: Subject[] = [];
  try {
    subjects.push(
      { name: "ours_file", client: await connectStdio(kvFile.path) },
      { name: "ours_memory", client: await connectStdio(":memory:") },
      { name: "standard", client: await connectStandardThinking(runtime) },
    );
    const commit = async (n: number) => {
      const start = performance.now();
      await commitKv.set(["commit"], n);
      return performance.now() - start;
    };
    let n = 1;
    for (; n <= WARMUP; n++) {
      for (const s of subjects) await timedCall(s, n);
      await commit(n);
    }
    const repeats: Record<string, number>[] = [];
    for (let r = 0; r < REPEATS; r++) {
      const samples: Record<string, number[]> = { commit: [] };
      for (const s of subjects) samples[s.name] = [];
      for (let i = 0; i < CALLS; i++, n++) {
        for (const s of subjects) samples[s.name].push(await timedCall(s, n));
        samples.commit.push(await commit(n));
      }
      repeats.push(
        Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)])),
      );
    }
    const medians = Object.fromEntries(
      Object.keys(repeats[0]).map((k) => [k, round(median(repeats.map((r) => r[k])))]),
    );
    const memoryRatio = median(repeats.map((r) => r.ours_memory / r.standard));
    const fileRatio = median(repeats.map((r) => r.ours_file / (r.standard + r.commit)));
    return {
      what:
        "median sequentialthinking round trip over stdio, per repeat; the standard server keeps thoughts in process memory and logs each one; commit is one kv.set on a KV file in the bench process",
      standard: `${STANDARD_THINKING_PACKAGE} on ${runtime}`,
      calls_per_repeat: CALLS,
      median_ms: medians,
      goals: [
        goal("sequentialthinking stdio, :memory: KV / standard", memoryRatio, "max", 1.0),
        goal(
          "sequentialthinking stdio, KV file / (standard + one commit)",
          fileRatio,
          "max",
          1.0,
        ),
      ],
    };
  } finally {
    for (const s of subjects) await s.client.close();
    commitKv.close();
    await kvFile.cleanup();
    await commitFile.cleanup();
  }
}

/** The `thinking` benchmark group. */
export const thinkingGroup: BenchGroup = {
  name: "thinking",
  what: "sequentialthinking over stdio against the standard server, on :memory: and a KV file",
  run,
};
