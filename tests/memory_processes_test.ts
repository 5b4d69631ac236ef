/**
 * Three server processes on one KV file, each with concurrent calls, write to one graph: every
 * acknowledged entity, observation and relation is there afterwards, and the graph's counts
 * equal a recount (the official server, rewriting one file per call, loses some of these).
 */

import assert from "node:assert/strict";
import { connectStdio, tempKvPath } from "./support/harness.ts";
import { call, type McpClient } from "./support/mcp.ts";

const PROCESSES = 3;
const WRITERS = 4;
const ROUNDS = 8;

Deno.test("memory: 3 processes writing one graph lose nothing and keep exact counts", async () => {
  const kv = await tempKvPath();
  const clients: McpClient[] = [];
  try {
    for (let p = 0; p < PROCESSES; p++) {
      clients.push(await connectStdio(kv.path, { TOOLSETS: "memory" }));
    }
    await call(clients[0], "create_entities", {
      entities: [{ name: "Hub", entityType: "place", observations: [] }],
    });
    const acknowledged = { entities: [] as string[], observations: [] as string[], relations: 0 };
    await Promise.all(
      clients.flatMap((client, p) =>
        Array.from({ length: WRITERS }, async (_, w) => {
          for (let r = 0; r < ROUNDS; r++) {
            const name = `p${p}-w${w}-r${r}`;
            const made = await call(client, "create_entities", {
              entities: [{ name, entityType: "note", observations: [`made by ${name}`] }],
            });
            assert.equal(made.isError, false, made.text);
            acknowledged.entities.push(name);
            const seen = await call(client, "add_observations", {
              observations: [{ entityName: "Hub", contents: [`visited by ${name}`] }],
            });
            assert.equal(seen.isError, false, seen.text);
            acknowledged.observations.push(`visited by ${name}`);
            const linked = await call(client, "create_relations", {
              relations: [{ from: name, to: "Hub", relationType: "visited" }],
            });
            assert.equal(linked.isError, false, linked.text);
            acknowledged.relations++;
          }
        })
      ),
    );
    const hub = await call(clients[1], "open_nodes", { names: ["Hub"] });
    const [entity] = hub.structured.entities as { observations: string[] }[];
    assert.deepEqual([...entity.observations].sort(), [...acknowledged.observations].sort());
    assert.equal((hub.structured.relations as unknown[]).length, acknowledged.relations);

    const names: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await call(clients[2], "read_graph", cursor ? { cursor } : {});
      names.push(...(page.structured.entities as { name: string }[]).map((e) => e.name));
      cursor = page.structured.next_cursor as string | undefined;
    } while (cursor);
    assert.deepEqual(names.sort(), ["Hub", ...acknowledged.entities].sort());
  } finally {
    for (const client of clients) await client.close();
  }
  const db = await Deno.openKv(kv.path);
  try {
    const record =
      (await db.get<{ entities: number; relations: number }>(["memory_graph", "default"]))
        .value!;
    let entities = 0;
    for await (const _ of db.list({ prefix: ["memory_entity", "default"] })) entities++;
    let relations = 0;
    for await (const _ of db.list({ prefix: ["memory_relation", "default"] })) relations++;
    assert.deepEqual(record.entities, entities);
    assert.deepEqual(record.relations, relations);
    assert.equal(entities, 1 + PROCESSES * WRITERS * ROUNDS);
  } finally {
    db.close();
    await kv.cleanup();
  }
});

Deno.test("memory: a process's graph copy never hides another process's write from search_nodes", async () => {
  const kv = await tempKvPath();
  const a = await connectStdio(kv.path, { TOOLSETS: "memory" });
  const b = await connectStdio(kv.path, { TOOLSETS: "memory" });
  try {
    await call(a, "create_entities", {
      entities: [{ name: "Ada", entityType: "person", observations: ["likes tea"] }],
    });
    const first = await call(a, "search_nodes", { query: "tea" });
    assert.equal((first.structured.entities as unknown[]).length, 1);
    await call(b, "add_observations", {
      observations: [{ entityName: "Ada", contents: ["drinks green tea"] }],
    });
    await call(b, "create_entities", {
      entities: [{ name: "Tea house", entityType: "place", observations: [] }],
    });
    const second = await call(a, "search_nodes", { query: "tea" });
    assert.deepEqual(
      (second.structured.entities as { name: string; observations: string[] }[]).map((e) => [
        e.name,
        e.observations.length,
      ]),
      [["Tea house", 0], ["Ada", 2]],
    );
    await call(b, "delete_entities", { entityNames: ["Tea house"] });
    const third = await call(a, "search_nodes", { query: "tea" });
    assert.equal((third.structured.entities as unknown[]).length, 1);
  } finally {
    await a.close();
    await b.close();
    await kv.cleanup();
  }
});
