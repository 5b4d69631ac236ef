/**
 * Odd input end to end: lone surrogates (which JSON carries as "\ud800" escapes and KV would
 * fold into U+FFFD), blank ids, numbers that are not numbers and misspelt argument names, sent
 * by SDK clients over Streamable HTTP and stdio to the real server.
 */

import assert from "node:assert/strict";
import type { Client } from "../src/client/sdk_client.ts";
import { call, connect, connectStdio, startServer, tempKvPath } from "./support/harness.ts";

type McpClient = InstanceType<typeof Client>;

/** Runs `fn` once with a client over Streamable HTTP and once over stdio, each on a fresh KV. */
async function overEachTransport(fn: (client: McpClient, via: string) => Promise<void>) {
  const server = await startServer();
  try {
    const client = await connect(server, "http");
    await fn(client, "http").finally(() => client.close());
  } finally {
    await server.close();
  }
  const file = await tempKvPath();
  try {
    const client = await connectStdio(file.path);
    await fn(client, "stdio").finally(() => client.close());
  } finally {
    await file.cleanup();
  }
}

const think = (n: number, extra: Record<string, unknown> = {}) => ({
  thought: `Step ${n}`,
  nextThoughtNeeded: true,
  thoughtNumber: n,
  totalThoughts: 3,
  ...extra,
});

Deno.test("branches named by lone surrogates are refused and never collide with U+FFFD", async () => {
  await overEachTransport(async (client, via) => {
    const first = await call(client, "sequentialthinking", think(1));
    const sequenceId = first.structured.sequenceId;
    for (const branchId of ["\uD800", "\uDBFF"]) {
      const fork = await call(
        client,
        "sequentialthinking",
        think(2, { sequenceId, branchFromThought: 1, branchId }),
      );
      assert.equal(fork.isError, true, `${via}: ${JSON.stringify(branchId)} is refused`);
      assert.match(fork.text, /^BRANCH_ID_INVALID: .*lone surrogates/);
    }
    const real = await call(
      client,
      "sequentialthinking",
      think(2, { sequenceId, branchFromThought: 1, branchId: "\uFFFD", thought: "replacement" }),
    );
    assert.equal(real.isError, false, real.text);
    const history = await call(client, "get_thought_history", { sequenceId, branchId: "\uFFFD" });
    const thoughts = history.structured.thoughts as { thought: string }[];
    assert.deepEqual(thoughts.map((t) => t.thought), ["replacement"], via);
    const bad = await call(
      client,
      "sequentialthinking",
      think(3, { sequenceId, thought: "\uD800" }),
    );
    assert.match(bad.text, /^THOUGHT_INVALID: /, via);
  });
});

Deno.test("lone surrogates, blank ids, non-numbers and unknown names are refused with their reason", async () => {
  await overEachTransport(async (client, via) => {
    const title = await call(client, "handoff_save", {
      summary: "s",
      conversation: "## User\nhi\n",
      title: "t\uD800",
    });
    assert.equal(title.isError, true, via);
    assert.match(title.text, /title has a lone UTF-16 surrogate/);
    const blank = await call(client, "set_north_star", { project_id: "   ", text: "Ship" });
    assert.match(blank.text, /project_id must be 1–128 characters, not blank/, via);
    const misspelt = await call(client, "add_task", {
      projectId: "p",
      body: "b",
      kind: "main",
    });
    assert.equal(misspelt.isError, true, via);
    assert.match(misspelt.text, /project_id/, `${via}: the missing required argument is named`);
    const hex = await call(client, "sequentialthinking", think(1, { thoughtNumber: "0x4" }));
    assert.match(
      hex.text,
      /thoughtNumber: Expected a whole number from 1 to 1000000.*got "0x4"/,
      via,
    );
    const digits = await call(client, "sequentialthinking", think(1, { totalThoughts: "4" }));
    assert.equal(digits.structured.totalThoughts, 4, `${via}: "4" is read as 4`);
    const listed = await call(client, "list_projects");
    assert.deepEqual(listed.structured.projects, [], `${via}: nothing refused was stored`);
    const handoffs = await call(client, "handoff_list");
    assert.deepEqual(handoffs.structured.handoffs, [], via);
  });
});
