/**
 * The memory toolset against the official knowledge-graph server: the same random call
 * sequences through both (ours over stdio on a KV file, theirs on its JSONL file), every result
 * compared. Our reads order entities by name (search_nodes: by relevance) and relations by key,
 * where upstream keeps insertion order, so reads are compared as sets; everything else exactly.
 */

import assert from "node:assert/strict";
import { connectStdio, tempKvPath } from "./support/harness.ts";
import { call, type McpClient } from "./support/mcp.ts";
import { memoryScript } from "./support/memory_script.ts";
import { connectOfficialMemory } from "./support/official_memory.ts";

type Graph = { entities: { name: string }[]; relations: Record<string, string>[] };

/** The official fields of a result, reads as sorted sets. */
function comparable(tool: string, data: Record<string, unknown>): unknown {
  if (!["read_graph", "search_nodes", "open_nodes"].includes(tool)) return data;
  const g = data as unknown as Graph;
  const key = (x: unknown) => JSON.stringify(x);
  return {
    entities: [...g.entities].sort((a, b) => key(a) < key(b) ? -1 : 1),
    relations: [...g.relations].map((r) => [r.from, r.to, r.relationType]).sort((a, b) =>
      key(a) < key(b) ? -1 : 1
    ),
  };
}

for (const seed of [1, 2, 3]) {
  Deno.test(`memory: seed ${seed}, 120 random calls give the official server's results`, async () => {
    const kv = await tempKvPath();
    const file = `${kv.path}.jsonl`;
    let ours: McpClient | undefined;
    let theirs: McpClient | undefined;
    try {
      ours = await connectStdio(kv.path, { TOOLSETS: "memory" });
      theirs = await connectOfficialMemory(file);
      for (const [i, step] of memoryScript(seed, 120).entries()) {
        const a = await call(ours, step.name, step.arguments);
        const b = await call(theirs, step.name, step.arguments);
        const where = `call ${i}: ${step.name} ${JSON.stringify(step.arguments)}`;
        assert.equal(a.isError, b.isError, `${where}\nours: ${a.text}\ntheirs: ${b.text}`);
        if (b.isError) continue;
        const { untrusted: _u, has_more, next_cursor: _c, notes: _n, ...official } = a.structured;
        if (has_more !== undefined) assert.equal(has_more, false, where);
        assert.deepEqual(
          comparable(step.name, official),
          comparable(step.name, b.structured),
          where,
        );
      }
    } finally {
      await ours?.close();
      await theirs?.close();
      await kv.cleanup();
    }
  });
}
