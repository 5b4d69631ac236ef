/**
 * Compatibility with the standard sequential-thinking server: the same scripted calls (with
 * branches, a revision and string-typed values) through it and through ours over stdio must
 * give the same standard structuredContent fields, call by call.
 */

import assert from "node:assert/strict";
import type { Client } from "../src/client/sdk_client.ts";
import { call, connectStdio, tempKvPath } from "./support/harness.ts";
import { connectStandardThinking, STANDARD_THINKING_PACKAGE } from "./support/standard_thinking.ts";

type McpClient = InstanceType<typeof Client>;

/** The fields the standard server returns; ours returns a superset of them. */
const SHARED = [
  "thoughtNumber",
  "totalThoughts",
  "nextThoughtNeeded",
  "branches",
  "thoughtHistoryLength",
] as const;

const SCRIPT: Record<string, unknown>[] = [
  {
    thought: "Restate the problem: the API is slow under load.",
    nextThoughtNeeded: true,
    thoughtNumber: 1,
    totalThoughts: 4,
  },
  {
    thought: "Measure first: p99 latency is dominated by the database.",
    nextThoughtNeeded: true,
    thoughtNumber: 2,
    totalThoughts: 4,
  },
  {
    thought: "Hypothesis: a missing index on orders.customer_id.",
    nextThoughtNeeded: true,
    thoughtNumber: 3,
    totalThoughts: 4,
  },
  {
    thought: "Revise step 2: the pool size, not the query, caps throughput.",
    nextThoughtNeeded: true,
    thoughtNumber: 4,
    totalThoughts: 5,
    isRevision: true,
    revisesThought: 2,
  },
  {
    thought: "Alternative: put a cache in front of the hot reads.",
    nextThoughtNeeded: true,
    thoughtNumber: 3,
    totalThoughts: 5,
    branchFromThought: 2,
    branchId: "try-cache",
  },
  {
    thought: "The cache needs invalidation on writes to orders.",
    nextThoughtNeeded: true,
    thoughtNumber: 4,
    totalThoughts: 5,
    branchFromThought: 2,
    branchId: "try-cache",
  },
  {
    thought: "Invalidation is cheap with versioned keys.",
    nextThoughtNeeded: true,
    thoughtNumber: 5,
    totalThoughts: 5,
    branchId: "try-cache",
    needsMoreThoughts: true,
  },
  {
    thought: "Another path: add the index and compare.",
    nextThoughtNeeded: true,
    thoughtNumber: 3,
    totalThoughts: 5,
    branchFromThought: 2,
    branchId: "add-index",
  },
  {
    thought: "Both help; the pool size matters most.",
    nextThoughtNeeded: "true",
    thoughtNumber: "5",
    totalThoughts: "4",
  },
  {
    thought: "Answer: raise the pool size, then add the index.",
    nextThoughtNeeded: "false",
    thoughtNumber: 6,
    totalThoughts: 6,
  },
];

type Shared = Record<(typeof SHARED)[number], unknown>;

async function runScript(
  client: McpClient,
  withSequenceId: boolean,
): Promise<Shared[]> {
  const out: Shared[] = [];
  let sequenceId: unknown;
  for (const [i, args] of SCRIPT.entries()) {
    const outcome = await call(
      client,
      "sequentialthinking",
      withSequenceId && sequenceId !== undefined ? { ...args, sequenceId } : args,
    );
    assert.equal(outcome.isError, false, `call ${i + 1}: ${outcome.text}`);
    assert.ok(outcome.structured, `call ${i + 1} has structuredContent`);
    sequenceId ??= outcome.structured.sequenceId;
    out.push(Object.fromEntries(SHARED.map((k) => [k, outcome.structured![k]])) as Shared);
  }
  return out;
}

Deno.test({
  name: `ours agrees with ${STANDARD_THINKING_PACKAGE} call by call over stdio`,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const kvFile = await tempKvPath();
    const standard = await connectStandardThinking("deno");
    const ours = await connectStdio(kvFile.path);
    try {
      const { tools: theirTools } = await standard.listTools();
      const { tools: ourTools } = await ours.listTools();
      const theirs = theirTools.find((t) => t.name === "sequentialthinking")!;
      const mine = ourTools.find((t) => t.name === "sequentialthinking")!;
      const ourProps = Object.keys(mine.inputSchema.properties!);
      for (const prop of Object.keys(theirs.inputSchema.properties!)) {
        assert.ok(ourProps.includes(prop), `we accept the standard input ${prop}`);
      }
      assert.deepEqual(mine.inputSchema.required?.sort(), theirs.inputSchema.required?.sort());
      for (const field of Object.keys(theirs.outputSchema?.properties ?? {})) {
        assert.ok(mine.outputSchema?.properties?.[field], `we return the standard field ${field}`);
      }

      const expected = await runScript(standard, false);
      // The standard server's own answers, so a change in either server is noticed.
      assert.deepEqual(expected.map((r) => r.thoughtHistoryLength), [
        1,
        2,
        3,
        4,
        5,
        6,
        7,
        8,
        9,
        10,
      ]);
      assert.deepEqual(expected.at(-3)!.branches, ["try-cache", "add-index"]);
      assert.deepEqual(expected.at(-2)!.totalThoughts, 5);
      assert.deepEqual(expected.at(-1)!.nextThoughtNeeded, false);

      // The very same calls (no sequenceId: this stdio session's sequence continues)…
      const implicit = await runScript(ours, false);
      for (const [i, row] of expected.entries()) {
        assert.deepEqual(implicit[i], row, `call ${i + 1} without sequenceId`);
      }
      // …and the calls a client aware of sequenceId makes, on a new sequence.
      const explicit = await runScript(ours, true);
      for (const [i, row] of expected.entries()) {
        assert.deepEqual(explicit[i], row, `call ${i + 1} with sequenceId`);
      }
    } finally {
      await standard.close();
      await ours.close();
      await kvFile.cleanup();
    }
  },
});
