/**
 * A tool's `tools/list` entry, made once from its recorded definition (`registry.ts`) the way the
 * SDK's `McpServer` lists a registered tool: the same fields in the same order, its schemas
 * converted through their Standard Schema face to the SDK's JSON Schema target (an input root
 * stamped `type: "object"` first, as the SDK stamps it), then the input made lean
 * (`listedInput`). Built from the definition, so listing needs no server.
 */

import type { Tool } from "./sdk.ts";
import { type JsonSchema, listedInput } from "./schema.ts";

/** What the SDK lists for a tool without an input schema. */
const NO_INPUT: JsonSchema = { type: "object", properties: {} };

/** The `tools/list` entry of the tool `name` registered with `config` (as `registerTool` got it). */
export function listedTool(name: string, config: Record<string, unknown>): Tool {
  const { title, description, inputSchema, outputSchema, annotations, icons, _meta } = config;
  const input = inputSchema === undefined
    ? NO_INPUT
    : { type: "object", ...jsonOf(inputSchema, "input") };
  return {
    name,
    title,
    description,
    inputSchema: listedInput(input),
    annotations,
    icons,
    _meta,
    // Our output schemas are zod objects: their root says `type: "object"` already.
    ...(outputSchema === undefined ? {} : { outputSchema: jsonOf(outputSchema, "output") }),
  } as Tool;
}

/** `schema`'s JSON Schema, from its Standard Schema face (zod 4 has one) in the SDK's dialect. */
function jsonOf(schema: unknown, io: "input" | "output"): JsonSchema {
  type Face = { jsonSchema?: Record<string, (o: { target: string }) => JsonSchema> };
  const convert = (schema as { "~standard": Face })["~standard"].jsonSchema?.[io];
  if (convert === undefined) throw new Error(`A tool's ${io} schema has no JSON Schema face`);
  return convert({ target: "draft-2020-12" });
}
