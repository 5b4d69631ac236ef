import assert from "node:assert/strict";
import { estimateJsonTokens, estimateTokens } from "../kit/budget.ts";
import { call, withMcpClient } from "../../tests/support/mcp.ts";

const ada = { name: "Ada", entityType: "person", observations: ["writes programs", "likes tea"] };
const babbage = { name: "Babbage", entityType: "person", observations: ["builds engines"] };

Deno.test("memory tools keep the official shapes and skip what exists", async () => {
  await withMcpClient({ toolsets: "memory" }, async ({ client }) => {
    const first = await call(client, "create_entities", { entities: [ada, babbage] });
    assert.equal(first.isError, false, first.text);
    assert.deepEqual(first.structured, { entities: [ada, babbage] });
    assert.deepEqual(JSON.parse(first.text), [ada, babbage]);
    const again = await call(client, "create_entities", { entities: [ada] });
    assert.deepEqual(again.structured, { entities: [] });

    const rel = { from: "Ada", to: "Babbage", relationType: "works with" };
    assert.deepEqual(
      (await call(client, "create_relations", { relations: [rel, rel] })).structured,
      {
        relations: [rel],
      },
    );
    const added = await call(client, "add_observations", {
      observations: [{ entityName: "Ada", contents: ["likes tea", "knows maths"] }],
    });
    assert.deepEqual(added.structured, {
      results: [{ entityName: "Ada", addedObservations: ["knows maths"] }],
    });
    const missing = await call(client, "add_observations", {
      observations: [
        { entityName: "Ada", contents: ["never saved"] },
        { entityName: "Nobody", contents: ["x"] },
      ],
    });
    assert.equal(missing.isError, true);
    assert.match(missing.text, /Entity with name Nobody not found/);

    const found = await call(client, "search_nodes", { query: "TEA" });
    assert.equal(found.isError, false, found.text);
    assert.deepEqual(found.structured.entities, [
      { ...ada, observations: [...ada.observations, "knows maths"] },
    ]);
    assert.deepEqual(found.structured.relations, [rel]);
    assert.match(found.text, /UNTRUSTED DATA/);
    assert.ok((found.structured.untrusted as { notice: string }).notice.includes("UNTRUSTED"));

    await call(client, "delete_entities", { entityNames: ["Babbage"] });
    const graph = await call(client, "read_graph");
    assert.deepEqual(graph.structured.relations, []);
    assert.deepEqual((graph.structured.entities as { name: string }[]).map((e) => e.name), [
      "Ada",
    ]);
    assert.equal(graph.structured.has_more, false);
  });
});

Deno.test("read_graph pages within RESULT_MAX_TOKENS and returns every entity once", async () => {
  await withMcpClient(
    { toolsets: "memory", env: { RESULT_MAX_TOKENS: "2000" } },
    async ({ client }) => {
      const entities = Array.from({ length: 60 }, (_, i) => ({
        name: `東京-${String(i).padStart(3, "0")}`,
        entityType: "place",
        observations: ["明日の会議は東京で行われます。".repeat(4), `note ${i}`],
      }));
      for (let i = 0; i < 60; i += 20) {
        const r = await call(client, "create_entities", { entities: entities.slice(i, i + 20) });
        assert.equal(r.isError, false, r.text);
      }
      const relations = entities.slice(1).map((e, i) => ({
        from: entities[i].name,
        to: e.name,
        relationType: "next to",
      }));
      await call(client, "create_relations", { relations: relations.slice(0, 50) });
      await call(client, "create_relations", { relations: relations.slice(50) });
      const seen: unknown[] = [];
      const seenRelations: unknown[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await call(client, "read_graph", cursor ? { cursor } : {});
        assert.equal(page.isError, false, page.text);
        pages++;
        assert.ok(estimateTokens(page.text) <= 2000, `text of ${estimateTokens(page.text)} tokens`);
        assert.ok(estimateJsonTokens(page.structured) <= 2000);
        seen.push(...page.structured.entities as unknown[]);
        seenRelations.push(...page.structured.relations as unknown[]);
        cursor = page.structured.next_cursor as string | undefined;
        assert.equal(page.structured.has_more, cursor !== undefined);
        if (cursor) assert.match(page.text, /cursor/);
      } while (cursor);
      assert.ok(pages > 3, `${pages} pages`);
      assert.deepEqual(seen, entities);
      assert.deepEqual(seenRelations.length, relations.length);
      const other = await call(client, "search_nodes", {
        query: "東京",
        cursor: "bm90IGEgY3Vyc29y",
      });
      assert.equal(other.isError, true);
    },
  );
});

Deno.test("bad input changes nothing and names the limit", async () => {
  await withMcpClient({
    toolsets: "memory",
    env: { MEMORY_ITEMS_MAX: "2", MEMORY_OBSERVATIONS_MAX: "2" },
  }, async ({ client }) => {
    const many = await call(client, "create_entities", {
      entities: [ada, babbage, { ...ada, name: "C" }],
    });
    assert.equal(many.isError, true);
    assert.match(many.text, /MEMORY_ITEMS_MAX/);
    const lone = await call(client, "create_entities", {
      entities: [{ name: "bad\ud800", entityType: "x", observations: [] }],
    });
    assert.equal(lone.isError, true);
    assert.match(lone.text, /surrogate/);
    await call(client, "create_entities", { entities: [ada] });
    const full = await call(client, "add_observations", {
      observations: [{ entityName: "Ada", contents: ["third"] }],
    });
    assert.equal(full.isError, true);
    assert.match(full.text, /MEMORY_OBSERVATIONS_MAX/);
    const graph = await call(client, "read_graph");
    assert.deepEqual(graph.structured.entities, [ada]);
  });
});

Deno.test("memory tools have titles, every hint, the toolset's icon and lean definitions", async () => {
  await withMcpClient({ toolsets: "memory" }, async ({ client }) => {
    const { tools } = await client.listTools();
    assert.equal(tools.length, 9);
    let bytes = 0;
    for (const tool of tools) {
      assert.ok(tool.title, tool.name);
      for (const hint of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"]) {
        assert.equal(typeof (tool.annotations as Record<string, unknown>)[hint], "boolean");
      }
      assert.match(String(tool.icons?.[0]?.src), /^data:image\/svg\+xml;base64,/);
      bytes += new TextEncoder().encode(JSON.stringify({
        name: `mcp__handoff__${tool.name}`,
        description: tool.description,
        input_schema: tool.inputSchema,
      })).length;
    }
    assert.ok(bytes / tools.length <= 550, `${Math.round(bytes / tools.length)} bytes per tool`);
  });
});
