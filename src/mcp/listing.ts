/**
 * A tool's `tools/list` entry, made once from its recorded definition (`registry.ts`) the way the
 * SDK's `McpServer` lists a registered tool: the same fields in the same order, its schemas
 * converted through their Standard Schema face to the SDK's JSON Schema target, then the input
 * schema made lean (`listedInput`). Built from the definition, so listing needs no server.
 */

import type { Tool } from "./sdk.ts";
import { type JsonSchema, listedInput } from "./schema.ts";

/** The JSON Schema dialect the SDK converts tool schemas to. */
const TARGET = "draft-2020-12";

/** What the SDK lists for a tool without an input schema. */
const NO_INPUT: JsonSchema = { type: "object", properties: {} };

/** A Standard Schema that can say what it is in JSON Schema (zod 4 can). */
interface JsonFace {
  "~standard": {
    jsonSchema?: Record<"input" | "output", (options: { target: string }) => JsonSchema>;
  };
}

/** A tool's definition as registered: its name and the config handed to `registerTool`. */
export interface ToolDefinition {
  name: string;
  config: Record<string, unknown>;
}

/** The `tools/list` entry of `tool` (a field it lacks is an undefined key, as the SDK's). */
export function listedTool({ name, config }: ToolDefinition): Tool {
  const input = config.inputSchema === undefined
    ? NO_INPUT
    : objectRoot(jsonOf(config.inputSchema, "input"), name);
  const entry: Record<string, unknown> = {
    name,
    title: config.title,
    description: config.description,
    inputSchema: listedInput(input),
    annotations: config.annotations,
    icons: config.icons,
    _meta: config._meta,
  };
  if (config.outputSchema !== undefined) {
    const output = jsonOf(config.outputSchema, "output");
    // Our output schemas are zod objects: their root says `type: "object"` already.
    entry.outputSchema = output.type === undefined ? { type: "object", ...output } : output;
  }
  return entry as Tool;
}

function jsonOf(schema: unknown, io: "input" | "output"): JsonSchema {
  const convert = (schema as JsonFace)["~standard"]?.jsonSchema?.[io];
  if (convert === undefined) throw new Error(`A tool's ${io} schema cannot say its JSON Schema`);
  return convert({ target: TARGET });
}

/** An input schema's root, stamped `type: "object"` first as the SDK stamps it. */
function objectRoot(json: JsonSchema, name: string): JsonSchema {
  if (json.type !== undefined && json.type !== "object") {
    throw new Error(`Tool ${name}: an input schema must describe an object`);
  }
  return { type: "object", ...json };
}
