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

/** The "or null" branch of a nullable field. */
const NULL = { type: "null", description: "no value" };

/**
 * A tool's arguments that refuse names the tool does not know, naming them and the accepted ones:
 * a model that writes `projectId` for `project_id` learns it instead of silently starting over.
 */
export function strictArgs<T extends z.ZodRawShape>(shape: T) {
  const accepted = Object.keys(shape);
  return z.strictObject(shape, {
    error: (issue) => {
      if (issue.code !== "unrecognized_keys") return undefined;
      const names = issue.keys.map((k) => `"${k}"`).join(", ");
      const allowed = accepted.length === 0 ? "none" : accepted.join(", ");
      return `unknown argument${issue.keys.length === 1 ? "" : "s"} ${names}; accepted: ${allowed}`;
    },
  });
}
