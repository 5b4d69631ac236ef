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

/**
 * `json` without the keywords that tell a model nothing and cost bytes on every turn (a client
 * sends each tool's schema with every request): `$schema`, and the ±2^53−1 bounds zod writes for
 * any integer. Real bounds stay. Builds new objects: the generated JSON is frozen and shared.
 */
export function withoutNoise(json: unknown): unknown {
  if (Array.isArray(json)) return json.map(withoutNoise);
  if (typeof json !== "object" || json === null) return json;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(json)) {
    if (key === "$schema") continue;
    if (key === "minimum" && value === Number.MIN_SAFE_INTEGER) continue;
    if (key === "maximum" && value === Number.MAX_SAFE_INTEGER) continue;
    out[key] = withoutNoise(value);
  }
  return out;
}

/**
 * A tool's arguments: each named one is checked as its schema says, and any other name passes
 * the parse, to be dropped (and reported) by `tools/arguments.ts` before the tool runs. Clients add
 * names of their own to calls (Gemini CLI's `wait_for_previous`), and a refusal would fail every
 * call they make.
 */
export function toolArgs<T extends z.ZodRawShape>(shape: T) {
  return z.looseObject(shape);
}

/**
 * The JSON Schema a tool's input is listed with, from the one `json` generated for its parsed
 * schema: without noise (`withoutNoise`), and without the `additionalProperties: {}` zod writes
 * for an open object. No `additionalProperties: false` either: every tool takes other names
 * (ignored and named in its result), so it would be untrue, and it cost each tool ~30 bytes of
 * every model turn (issue 24); the listed properties already say what a model should send.
 */
export function listedInput(json: JsonSchema): JsonSchema {
  const { additionalProperties, ...rest } = withoutNoise(json) as JsonSchema;
  const open = typeof additionalProperties === "object" && additionalProperties !== null &&
    Object.keys(additionalProperties).length === 0;
  return open ? rest : { ...rest, additionalProperties };
}
