import assert from "node:assert/strict";
import { z } from "zod";
import { withMcpClient } from "../../tests/support/mcp.ts";
import { listedInput, nullableString, toolArgs } from "./schema.ts";

type Json = Record<string, unknown>;

const PRIMITIVES = ["string", "number", "integer", "boolean"];

/**
 * Where `schema` uses what function-calling clients (Gemini among them) reject: a `type` list,
 * or alternatives of different types. In an output, "or null" (`anyOf` T, null) is allowed: it
 * is how JSON Schema says a value may be missing, and outputs are not function parameters.
 */
function rejected(schema: unknown, io: "input" | "output", path = ""): string[] {
  if (Array.isArray(schema)) return schema.flatMap((s, i) => rejected(s, io, `${path}[${i}]`));
  if (schema === null || typeof schema !== "object") return [];
  const node = schema as Json;
  const out: string[] = [];
  if (Array.isArray(node.type)) out.push(`${path || "/"}: type list ${JSON.stringify(node.type)}`);
  for (const key of ["anyOf", "oneOf"]) {
    const options = node[key];
    if (!Array.isArray(options)) continue;
    const types = options.map((o) => (o as Json).type);
    const nonNull = types.filter((t) => t !== "null");
    const mixed = new Set(nonNull.map(String)).size > 1 ||
      (io === "input" && types.length > 1) ||
      nonNull.length > 1 && nonNull.some((t) => PRIMITIVES.includes(String(t)));
    if (mixed) out.push(`${path || "/"}: ${key} of ${JSON.stringify(types)}`);
  }
  for (const [key, value] of Object.entries(node)) {
    out.push(...rejected(value, io, `${path}/${key}`));
  }
  return out;
}

Deno.test("rejected() finds type lists and unions, and allows an output's 'or null'", () => {
  assert.deepEqual(rejected({ properties: { a: { type: ["string", "null"] } } }, "output"), [
    '/properties/a: type list ["string","null"]',
  ]);
  assert.deepEqual(rejected({ anyOf: [{ type: "boolean" }, { type: "string" }] }, "input"), [
    '/: anyOf of ["boolean","string"]',
  ]);
  assert.deepEqual(rejected({ anyOf: [{ type: "string" }, { type: "null" }] }, "input"), [
    '/: anyOf of ["string","null"]',
  ]);
  assert.deepEqual(rejected({ anyOf: [{ type: "string" }, { type: "null" }] }, "output"), []);
  assert.deepEqual(rejected({ oneOf: [{ type: "integer" }, { type: "string" }] }, "output"), [
    '/: oneOf of ["integer","string"]',
  ]);
});

Deno.test("every tool's input and output schema is one clients such as Gemini accept", async () => {
  await withMcpClient({}, async ({ client }) => {
    const { tools } = await client.listTools();
    assert.ok(tools.length >= 19, "every toolset is listed");
    const problems = tools.flatMap((tool) => [
      ...rejected(tool.inputSchema, "input").map((p) => `${tool.name} input ${p}`),
      ...rejected(tool.outputSchema ?? {}, "output").map((p) => `${tool.name} output ${p}`),
    ]);
    assert.deepEqual(problems, []);
  });
});

Deno.test("nullableString() takes a string or null and lists no type list", () => {
  const schema = z.object({ a: nullableString("maybe"), b: nullableString() });
  assert.deepEqual(schema.parse({ a: null, b: "x" }), { a: null, b: "x" });
  assert.throws(() => schema.parse({ a: 1, b: null }));
  const json = z.toJSONSchema(schema, { target: "draft-7", io: "output" }) as Json;
  assert.deepEqual((json.properties as Json).a, {
    anyOf: [{ type: "string" }, { type: "null", description: "no value" }],
    description: "maybe",
  });
});

Deno.test("toolArgs() parses unknown names through and lists no additionalProperties", () => {
  const schema = toolArgs({ project_id: z.string(), limit: z.number().optional() });
  assert.deepEqual(schema.parse({ project_id: "p", projectId: "q" }), {
    project_id: "p",
    projectId: "q",
  });
  assert.equal(schema.safeParse({ projectId: "q" }).success, false, "required stays required");
  const json = z.toJSONSchema(schema, { target: "draft-7", io: "input" }) as Json;
  assert.deepEqual(json.additionalProperties, {}, "zod writes the open object as {}");
  assert.equal("additionalProperties" in listedInput(json), false);
});

Deno.test("listedInput() drops $schema and zod's ±2^53−1 integer bounds, keeps real bounds", () => {
  const schema = toolArgs({
    n: z.number().int().optional(),
    page: z.number().int().min(1).max(200).optional(),
  });
  const json = z.toJSONSchema(schema, { io: "input" }) as Json;
  assert.ok("$schema" in json, "zod writes $schema");
  const listed = listedInput(json);
  assert.equal("$schema" in listed, false);
  const properties = listed.properties as Record<string, Json>;
  assert.deepEqual(properties.n, { type: "integer" });
  assert.deepEqual(properties.page, { type: "integer", minimum: 1, maximum: 200 });
});
