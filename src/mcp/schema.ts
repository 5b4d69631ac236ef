/**
 * Tool schemas that every client accepts. Function-calling clients such as Gemini take a subset
 * of JSON Schema: a `type` is one name, never a list (`["string", "null"]`), and an argument has
 * one type. Zod writes a nullable string as a `type` list, so such fields are declared here.
 */

import { z } from "zod";

/** A JSON Schema object, as a tool listing carries it. */
export type JsonSchema = Record<string, unknown>;

/**
 * `schema`, advertised to clients as `json` with `description`: for a run-time parse that JSON
 * Schema cannot state (a transform), or a shape it would state in a form some clients reject.
 * `json` must describe at most what `schema` accepts. `schema` must be freshly built, not the
 * result of `.describe()` (a copy whose listing would come from its original).
 */
export function advertisedAs<T extends z.ZodType>(
  schema: T,
  json: JsonSchema,
  description?: string,
): T {
  (schema._zod as { toJSONSchema?: () => JsonSchema }).toJSONSchema = () => structuredClone(json);
  if (description !== undefined) z.globalRegistry.add(schema, { description });
  return schema;
}

/**
 * An output field holding a string or null, listed as `anyOf` string, null. The null branch
 * carries a description so that zod does not fold the two into a `type` list.
 */
export function nullableString(description?: string) {
  return advertisedAs(z.string().nullable(), { anyOf: [{ type: "string" }, NULL] }, description);
}

/** An output field holding a whole number or null (a position to read on, or none), as `anyOf`. */
export function nullableInt(description?: string) {
  return advertisedAs(
    z.number().int().nullable(),
    { anyOf: [{ type: "integer" }, NULL] },
    description,
  );
}

/** The "or null" branch of a nullable field. */
const NULL = { type: "null", description: "no value" };

/** The argument objects `toolArgs` made: listed as closed, parsed as open. */
const TOOL_ARGS = new WeakSet<object>();

/**
 * A tool's arguments: each named one is checked as its schema says, and any other name passes
 * the parse, to be dropped (and reported) by `mcp/arguments.ts` before the tool runs. Clients add
 * names of their own to calls (Gemini CLI's `wait_for_previous`), and a refusal would fail every
 * call they make. The listing still says `additionalProperties: false` (`listedInput`): that is
 * what a model should send, and it steers models away from inventing names.
 */
export function toolArgs<T extends z.ZodRawShape>(shape: T) {
  const schema = z.looseObject(shape);
  TOOL_ARGS.add(schema);
  return schema;
}

/**
 * The JSON Schema a tool's input is listed with, from the one `json` generated for its parsed
 * schema: closed for `toolArgs` objects; for other open objects (the drop-in thinking tools,
 * listed as the standard server lists them) without the `additionalProperties: {}` zod writes.
 */
export function listedInput(schema: unknown, json: JsonSchema): JsonSchema {
  if (typeof schema === "object" && schema !== null && TOOL_ARGS.has(schema)) {
    return { ...json, additionalProperties: false };
  }
  const { additionalProperties, ...rest } = json;
  const open = typeof additionalProperties === "object" && additionalProperties !== null &&
    Object.keys(additionalProperties).length === 0;
  return open ? rest : json;
}
