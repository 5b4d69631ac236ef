/**
 * Checks a tool result as strict clients do: its `structuredContent` against the tool's published
 * `outputSchema` with the Ajv the MCP SDK ships (Gemini CLI fails a call on a field the schema does
 * not declare), and the untrusted-data contract of issue 19 on top.
 */

import { AjvJsonSchemaValidator } from "../../src/client/sdk_client.ts";

type Json = Record<string, unknown>;

/** A listed tool, as far as these checks read it. */
export interface ListedTool {
  name: string;
  outputSchema?: Json;
}

/** What is wrong with `data` under `schema`, one line each (none: it matches). */
export type Problems = string[];

/** Validators for every listed tool that has an output schema, compiled once. */
export function outputValidators(tools: readonly ListedTool[]) {
  const ajv = new AjvJsonSchemaValidator();
  const validators = new Map<string, (data: unknown) => Problems>();
  for (const tool of tools) {
    if (!tool.outputSchema) continue;
    const schema = tool.outputSchema;
    const validate = ajv.getValidator(schema as never);
    validators.set(tool.name, (data) => {
      const r = validate(data);
      if (r.valid) return [];
      const extra = undeclared(data, schema).map((p) => `${p} is not declared`);
      return [`Ajv: ${r.errorMessage}`, ...extra];
    });
  }
  return validators;
}

/** The schemas `schema` may be at once: itself, or each of its `anyOf`/`oneOf` options. */
function options(schema: Json): Json[] {
  const alts = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  return alts ? alts.flatMap(options) : [schema];
}

/**
 * The paths in `value` of keys no schema declares (Ajv's message says only "must NOT have
 * additional properties", not which): the test names the field to declare.
 */
export function undeclared(value: unknown, schema: Json, path = "$"): string[] {
  if (Array.isArray(value)) {
    const items = options(schema).find((s) => s.items)?.items as Json | undefined;
    return items ? value.flatMap((v, i) => undeclared(v, items, `${path}[${i}]`)) : [];
  }
  if (value === null || typeof value !== "object") return [];
  const objects = options(schema).filter((s) => s.properties || s.type === "object");
  if (objects.length === 0) return [];
  const properties = (objects[0].properties ?? {}) as Record<string, Json>;
  return Object.entries(value).flatMap(([key, v]) =>
    key in properties
      ? undeclared(v, properties[key], `${path}.${key}`)
      : objects[0].additionalProperties === false
      ? [`${path}.${key}`]
      : []
  );
}

/** True when the schema declares the field at `path` (`messages[].body`, `decision.title`). */
export function declares(schema: Json, path: string): boolean {
  let at: Json[] = [schema];
  for (const part of path.split(".")) {
    const name = part.replace(/\[\]$/, "");
    at = at.flatMap(options).flatMap((s) => {
      const next = (s.properties as Record<string, Json> | undefined)?.[name];
      return next ? [next] : [];
    });
    if (part.endsWith("[]")) {
      at = at.flatMap(options).flatMap((s) => s.items ? [s.items as Json] : []);
    }
    if (at.length === 0) return false;
  }
  return true;
}

/** The paths (`messages[].body`) of every string in `value` that contains `needle`. */
export function pathsHolding(value: unknown, needle: string, path = ""): string[] {
  if (typeof value === "string") return value.includes(needle) ? [path] : [];
  if (Array.isArray(value)) {
    return [...new Set(value.flatMap((v) => pathsHolding(v, needle, `${path}[]`)))];
  }
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([k, v]) =>
    pathsHolding(v, needle, path === "" ? k : `${path}.${k}`)
  );
}

/** Every string in `value`, for finding where a line of the text went. */
export function stringsOf(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(stringsOf);
  if (value === null || typeof value !== "object") return [];
  return Object.values(value).flatMap(stringsOf);
}

/** The untrusted notice of a result, as `structuredContent.untrusted` holds it. */
interface Notice {
  notice: string;
  nonce: string;
  fields: string[];
}

/**
 * The issue-19 contract on one result: text `other` wrote (every such text holds `sentinel`)
 * appears only under fields the `untrusted` notice names, and the notice is the first key, with
 * the nonce of the text's end markers and fields the schema declares.
 */
export function untrustedProblems(
  text: string,
  data: Json,
  schema: Json,
  sentinel: string,
): Problems {
  const problems: Problems = [];
  const held = pathsHolding(data, sentinel).filter((p) => !p.startsWith("untrusted"));
  const notice = data.untrusted as Notice | undefined;
  if (notice === undefined) {
    if (held.length > 0) {
      problems.push(`others' text at ${held.join(", ")} without an untrusted notice`);
    }
    return problems;
  }
  if (Object.keys(data)[0] !== "untrusted") {
    problems.push(`untrusted is key ${Object.keys(data).indexOf("untrusted")}, not the first`);
  }
  // `handoffs[].tags` names the strings of the list too (`handoffs[].tags[]`).
  const named = (p: string) =>
    notice.fields.includes(p) || notice.fields.includes(p.replace(/\[\]$/, ""));
  const unnamed = held.filter((p) => !named(p));
  if (unnamed.length) {
    problems.push(`others' text at ${unnamed.join(", ")}, not in untrusted.fields`);
  }
  for (const f of notice.fields) {
    if (!declares(schema, f)) problems.push(`untrusted.fields names ${f}, not in the schema`);
  }
  if (!notice.notice.includes(`UNTRUSTED DATA ${notice.nonce}`)) {
    problems.push("untrusted.notice does not carry its nonce");
  }
  const markers = new Set([...text.matchAll(/END OF SAVED DATA ([\w-]+)/g)].map((m) => m[1]));
  for (const m of markers) {
    if (m !== notice.nonce) {
      problems.push(`text ends data with nonce ${m}, notice has ${notice.nonce}`);
    }
  }
  return problems;
}

/**
 * Guidance the text gives that the structured content lacks: a warning (`⚠ …`, not the untrusted
 * banner) or a `Note:` line not found among its strings, and a cut list without `notes` (or the
 * tool's own `warning`).
 */
export function guidanceProblems(text: string, data: Json): Problems {
  const problems: Problems = [];
  const strings = stringsOf(data);
  for (const line of text.split("\n")) {
    const said = line.match(/^(?:⚠ (?!UNTRUSTED DATA)|Note: )(.+)$/)?.[1];
    if (said && !strings.some((s) => s.includes(said))) {
      problems.push(`the text's "${line}" is not in the structured content`);
    }
  }
  const cut = data.has_more === true || typeof data.nextCursor === "string";
  const told = Array.isArray(data.notes) && data.notes.length > 0 ||
    typeof data.warning === "string";
  if (cut && !told) {
    problems.push("a cut list without notes saying how to see the rest");
  }
  return problems;
}
