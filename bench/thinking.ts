/**
 * `sequentialthinking` latency over stdio: ours (durable, on a KV file) against the standard
 * npm server (in memory) in the same run. Calls alternate between the servers so both see the
 * same machine load; the ratio is ours / standard of the medians.
 */

import type { Client } from "../src/mcp/sdk_client.ts";
import { connectStdio, tempKvPath } from "../tests/support/harness.ts";
import {
  connectStandardThinking,
  nodeAvailable,
  STANDARD_THINKING_PACKAGE,
  type StandardRuntime,
} from "../tests/support/standard_thinking.ts";
import { round, summarize, type Summary } from "./lib.ts";

type McpClient = InstanceType<typeof Client>;

const WARMUP = 50;
const CALLS = 600;
const TEXT =
  "Consider the trade-off between caching the hot reads and adding the missing index: the cache hides latency but needs invalidation on every write, while the index fixes the cause. Measure p99 before and after each change, and keep the simpler fix if both meet the target. ";

async function timedCall(client: McpClient, args: Record<string, unknown>): Promise<number> {
  const start = performance.now();
  const result = await client.callTool({ name: "sequentialthinking", arguments: args });
  const elapsed = performance.now() - start;
  if (result.isError) throw new Error(`sequentialthinking failed: ${JSON.stringify(result)}`);
  return elapsed;
}

/** One server under test: how to call it, and the sequence it writes to (ours only). */
interface Subject {
  name: string;
  client: McpClient;
  sequenceId?: string;
  samples: number[];
}

function args(n: number, subject: Subject): Record<string, unknown> {
  const base: Record<string, unknown> = {
    thought: `${n}. ${TEXT}`,
    nextThoughtNeeded: true,
    thoughtNumber: n,
    totalThoughts: WARMUP + CALLS,
  };
  if (subject.sequenceId) base.sequenceId = subject.sequenceId;
  return base;
}

/** Runs the standard server on Node (as `npx` users do) when it is there, and on Deno. */
async function runtimes(): Promise<StandardRuntime[]> {
  return (await nodeAvailable()) ? ["node", "deno"] : ["deno"];
}

/** Median `sequentialthinking` latency, ours over stdio vs the standard server over stdio. */
export async function benchThinking(): Promise<Record<string, unknown>> {
  const kvFile = await tempKvPath();
  const subjects: Subject[] = [];
  try {
    const ours: Subject = { name: "ours", client: await connectStdio(kvFile.path), samples: [] };
    // The same server on in-memory KV (not durable), to show what the fsync per thought costs.
    const memory: Subject = {
      name: "ours_memory_kv",
      client: await connectStdio(":memory:"),
      samples: [],
    };
    subjects.push(ours, memory);
    for (const runtime of await runtimes()) {
      subjects.push({
        name: `standard_${runtime}`,
        client: await connectStandardThinking(runtime),
        samples: [],
      });
    }
    for (const s of [ours, memory]) {
      const first = await s.client.callTool({ name: "sequentialthinking", arguments: args(1, s) });
      s.sequenceId = String((first.structuredContent as { sequenceId: string }).sequenceId);
    }
    for (const s of subjects.slice(2)) await timedCall(s.client, args(1, s));

    for (let n = 2; n <= WARMUP + CALLS; n++) {
      for (const subject of subjects) {
        const ms = await timedCall(subject.client, args(n, subject));
        if (n > WARMUP) subject.samples.push(ms);
      }
    }
    const summaries: Record<string, Summary> = {};
    for (const s of subjects) summaries[s.name] = summarize(s.samples);
    const ratios: Record<string, number> = {};
    for (const s of subjects.slice(2)) {
      ratios[`ours_vs_${s.name}`] = round(summaries.ours.median_ms / summaries[s.name].median_ms);
      ratios[`ours_memory_kv_vs_${s.name}`] = round(
        summaries.ours_memory_kv.median_ms / summaries[s.name].median_ms,
      );
    }
    const primary = summaries.standard_node ? "standard_node" : "standard_deno";
    return {
      what:
        "median sequentialthinking round trip over stdio; ours writes each thought to a KV file (one fsync per thought), the standard server keeps it in process memory; ours_memory_kv is ours on in-memory KV (not durable), for attribution",
      standard: STANDARD_THINKING_PACKAGE,
      calls_per_server: CALLS,
      thought_characters: TEXT.length + 5,
      ...summaries,
      ratio: Math.round((summaries.ours.median_ms / summaries[primary].median_ms) * 100) / 100,
      ratio_against: primary,
      ratios,
      durable_write_cost_ms: round(summaries.ours.median_ms - summaries.ours_memory_kv.median_ms),
      goal: "ratio <= 1.5",
    };
  } finally {
    for (const s of subjects) await s.client.close();
    await kvFile.cleanup();
  }
}
