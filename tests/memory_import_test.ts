/**
 * `deno task import-memory`: a memory.jsonl written by the official server itself is imported
 * twice with the same result (the second writes nothing), the graph matches what the official
 * server reads back, and a malformed line is refused by its number with nothing written.
 */

import assert from "node:assert/strict";
import { connectStdio, runTask, tempKvPath } from "./support/harness.ts";
import { call } from "./support/mcp.ts";
import { memoryScript } from "./support/memory_script.ts";
import { connectOfficialMemory } from "./support/official_memory.ts";

async function importMemory(kvPath: string, file: string, env: Record<string, string> = {}) {
  const out = await runTask(["import-memory", file], { KV_PATH: kvPath, ...env });
  return { code: out.code, err: out.stderr };
}

async function versionstamps(kvPath: string): Promise<string[]> {
  const kv = await Deno.openKv(kvPath);
  try {
    const stamps: string[] = [];
    for await (const e of kv.list({ prefix: [] })) stamps.push(e.versionstamp);
    return stamps.sort();
  } finally {
    kv.close();
  }
}

Deno.test("import-memory brings an official memory.jsonl in, twice with the same result", async () => {
  const kv = await tempKvPath();
  const file = `${kv.path}.jsonl`;
  try {
    const official = await connectOfficialMemory(file);
    for (const step of memoryScript(7, 80)) await call(official, step.name, step.arguments);
    const theirs = await call(official, "read_graph");
    await official.close();

    const first = await importMemory(kv.path, file);
    assert.equal(first.code, 0, first.err);
    assert.match(first.err, /added \d+ entities/);
    const stamps = await versionstamps(kv.path);
    const second = await importMemory(kv.path, file);
    assert.equal(second.code, 0, second.err);
    assert.match(second.err, /added 0 entities, 0 observations .* 0 relations/);
    assert.deepEqual(await versionstamps(kv.path), stamps, "the second import wrote nothing");

    const ours = await connectStdio(kv.path, { TOOLSETS: "memory" });
    const graph = await call(ours, "read_graph");
    await ours.close();
    const byName = (a: { name: string }, b: { name: string }) => a.name < b.name ? -1 : 1;
    assert.deepEqual(
      graph.structured.entities,
      [...theirs.structured.entities as { name: string }[]].sort(byName),
    );
    assert.equal(
      (graph.structured.relations as unknown[]).length,
      (theirs.structured.relations as unknown[]).length,
    );
  } finally {
    await kv.cleanup();
  }
});

Deno.test("import-memory refuses a malformed line by number and writes nothing", async () => {
  const kv = await tempKvPath();
  const file = `${kv.path}.jsonl`;
  try {
    await Deno.writeTextFile(
      file,
      [
        JSON.stringify({ type: "entity", name: "Ada", entityType: "person", observations: [] }),
        JSON.stringify({ type: "relation", from: "Ada", to: "Bob", relationType: "knows" }),
        `{"type":"entity","name":"Bob",`,
      ].join("\n"),
    );
    const refused = await importMemory(kv.path, file);
    assert.equal(refused.code, 1);
    assert.match(refused.err, /line 3: not JSON; nothing was imported/);
    assert.deepEqual(await versionstamps(kv.path), []);
  } finally {
    await kv.cleanup();
  }
});

Deno.test("import-memory refuses a file the graph's limits cannot hold before writing any of it", async () => {
  const kv = await tempKvPath();
  const file = `${kv.path}.jsonl`;
  const entity = (name: string, observations: string[] = []) =>
    JSON.stringify({ type: "entity", name, entityType: "t", observations });
  const relation = (from: string, to: string) =>
    JSON.stringify({ type: "relation", from, to, relationType: "knows" });
  // Small limits and calls, so the file spans several calls: a check per call would write the
  // first ones before refusing.
  const limits = {
    MEMORY_ENTITIES_MAX: "5",
    MEMORY_RELATIONS_MAX: "3",
    MEMORY_OBSERVATIONS_MAX: "3",
    MEMORY_ITEMS_MAX: "2",
  };
  try {
    await Deno.writeTextFile(file, ["a", "b", "c"].map((n) => entity(n, ["x"])).join("\n"));
    assert.equal((await importMemory(kv.path, file, limits)).code, 0);
    const before = await versionstamps(kv.path);
    const files: [string[], RegExp][] = [
      [
        ["a", "b", "c", "d", "e", "f"].map((n) => entity(n)),
        /3 new entities.*3 this graph holds.*limit of 5 \(MEMORY_ENTITIES_MAX\)/,
      ],
      [
        ["a-b", "b-c", "c-a", "a-c"].map((r) => relation(r[0], r[2])),
        /4 new relations.*limit of 3 \(MEMORY_RELATIONS_MAX\)/,
      ],
      [
        [entity("d"), entity("a", ["y", "z", "w"])],
        /Entity "a" would hold 4 observations.*MEMORY_OBSERVATIONS_MAX/,
      ],
    ];
    for (const [lines, why] of files) {
      await Deno.writeTextFile(file, lines.join("\n"));
      const refused = await importMemory(kv.path, file, limits);
      assert.equal(refused.code, 1, refused.err);
      assert.match(refused.err, why);
      assert.match(refused.err, /nothing was imported/);
      assert.deepEqual(await versionstamps(kv.path), before, "nothing written");
    }
  } finally {
    await kv.cleanup();
  }
});

Deno.test("import-memory writes large entities and long-named relations in calls KV's atomic limits hold", async () => {
  const kv = await tempKvPath();
  const file = `${kv.path}.jsonl`;
  try {
    const lines = Array.from({ length: 40 }, (_, i) =>
      JSON.stringify({
        type: "entity",
        name: `big${i}`,
        entityType: "t",
        observations: Array.from({ length: 8 }, (_, j) => `${i}-${j}-${"x".repeat(3900)}`),
      }));
    const long = (c: string, i: number) => `${c.repeat(500)}${i}`;
    for (let i = 0; i < 60; i++) {
      lines.push(JSON.stringify({
        type: "relation",
        from: long("a", i),
        to: long("b", i),
        relationType: long("c", i),
      }));
    }
    await Deno.writeTextFile(file, lines.join("\n"));
    const done = await importMemory(kv.path, file);
    assert.equal(done.code, 0, done.err);
    const db = await Deno.openKv(kv.path);
    try {
      const count = async (family: string) =>
        (await Array.fromAsync(db.list({ prefix: [family, "default"] }))).length;
      assert.equal(await count("memory_entity"), 40);
      assert.equal(await count("memory_relation"), 60);
    } finally {
      db.close();
    }
  } finally {
    await kv.cleanup();
  }
});
