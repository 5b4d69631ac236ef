/**
 * Tool definitions are built once per process and shared by every connection; what one MCP
 * session remembers (thinking's implied sequence) must never reach another client.
 */

import assert from "node:assert/strict";
import { call, connect, type HttpKind, startServer } from "./support/harness.ts";

function thought(n: number, text: string): Record<string, unknown> {
  return { thought: text, nextThoughtNeeded: true, thoughtNumber: n, totalThoughts: 3 };
}

async function historyLength(
  client: Awaited<ReturnType<typeof connect>>,
  sequenceId: string,
): Promise<number> {
  const page = await call(client, "get_thought_history", { sequenceId });
  assert.equal(page.isError, false, page.text);
  return (page.structured?.sequence as { thoughtHistoryLength: number }).thoughtHistoryLength;
}

for (const kind of ["sse", "http"] as HttpKind[]) {
  Deno.test(`two ${kind} clients never continue each other's implied thinking sequence`, async () => {
    const server = await startServer();
    const a = await connect(server, kind);
    const b = await connect(server, kind);
    try {
      const first = await call(a, "sequentialthinking", thought(1, "A starts"));
      assert.equal(first.isError, false, first.text);
      const sequenceA = String(first.structured?.sequenceId);

      // B never started a sequence: its thought 2 without an id must not land in A's.
      const fromB = await call(b, "sequentialthinking", thought(2, "B goes on"));
      assert.equal(fromB.isError, false, fromB.text);
      assert.notEqual(fromB.structured?.sequenceId, sequenceA);
      assert.ok(!(fromB.structured?.flags as string[]).includes("SESSION_SEQUENCE"));

      const again = await call(a, "sequentialthinking", thought(2, "A goes on"));
      assert.equal(again.isError, false, again.text);
      if (kind === "sse") {
        // One SSE connection is one session: A's own next thought continues A's sequence.
        assert.equal(again.structured?.sequenceId, sequenceA);
        assert.deepEqual(again.structured?.flags, ["SESSION_SEQUENCE"]);
        assert.equal(await historyLength(a, sequenceA), 2);
      } else {
        // Stateless HTTP: every request is its own session, so nothing is implied across them.
        assert.notEqual(again.structured?.sequenceId, sequenceA);
        assert.equal(await historyLength(a, sequenceA), 1);
      }
    } finally {
      await a.close();
      await b.close();
      await server.close();
    }
  });
}
