/**
 * Liberal in what a tool call may carry: an argument a tool does not know is dropped before the
 * tool runs, so it is never obeyed and never fails the call. A name some client adds to every call
 * on its own is dropped without a word; any other is named in the result, so a model that
 * misspelled an optional argument (`projectId` for `project_id`) learns it instead of silently
 * getting a default.
 */

import { z } from "zod";

/**
 * Names clients add to calls of every tool, whatever its schema: Gemini CLI tells its model to
 * set `wait_for_previous` and passes it on. Names starting with `_` are clients' own metadata.
 */
const CLIENT_ADDITIONS: ReadonlySet<string> = new Set(["wait_for_previous"]);

/** True for a name a client adds on its own, which is dropped without being reported. */
function isClientAddition(name: string): boolean {
  return CLIENT_ADDITIONS.has(name) || name.startsWith("_");
}

/** The output field that names the ignored arguments (declared in every tool's output schema). */
export const IGNORED_ARGUMENTS = {
  ignored_arguments: z.array(z.string()).optional().describe(
    "Argument names this tool does not take: ignored, nothing was done with them (the text lists the accepted ones)",
  ),
};

/** A call's arguments without the names the tool does not take, and those worth reporting. */
export interface SplitArguments {
  args: Record<string, unknown>;
  /** Unknown names the model should hear of (not client additions), in the order sent. */
  ignored: string[];
}

/** Splits `args` into what `accepted` names and the rest. */
function splitArguments(
  args: Record<string, unknown>,
  accepted: ReadonlySet<string>,
): SplitArguments {
  let kept: Record<string, unknown> | undefined;
  const ignored: string[] = [];
  for (const name of Object.keys(args)) {
    if (accepted.has(name)) continue;
    kept ??= { ...args };
    delete kept[name];
    if (!isClientAddition(name)) ignored.push(name);
  }
  return { args: kept ?? args, ignored };
}

/** The line a result's text ends with when arguments were ignored. */
function ignoredLine(ignored: readonly string[], accepted: readonly string[]): string {
  const names = ignored.map((n) => `"${n}"`).join(", ");
  const allowed = accepted.length === 0 ? "none" : accepted.join(", ");
  return `Ignored argument${
    ignored.length === 1 ? "" : "s"
  } ${names}: not taken by this tool, nothing was done with ${
    ignored.length === 1 ? "it" : "them"
  } (accepted: ${allowed}).`;
}

/** A tool result as this module reads and extends it. */
interface ToolResultLike {
  content?: unknown;
  structuredContent?: unknown;
  isError?: boolean;
  [key: string]: unknown;
}

/**
 * `result` telling of the `ignored` arguments: a line after its text, and `ignored_arguments` in
 * its structured content when it has some. A result with nothing ignored is returned as it is.
 */
function withIgnored<R>(
  result: R,
  ignored: readonly string[],
  accepted: readonly string[],
): R {
  if (ignored.length === 0 || typeof result !== "object" || result === null) return result;
  const r = result as ToolResultLike;
  const line = ignoredLine(ignored, accepted);
  const content = Array.isArray(r.content) ? [...r.content] : [];
  const last = content.length - 1;
  const block = content[last] as { type?: string; text?: string } | undefined;
  if (block?.type === "text" && typeof block.text === "string") {
    content[last] = { ...block, text: `${block.text}\n\n${line}` };
  } else content.push({ type: "text", text: line });
  const out: ToolResultLike = { ...r, content };
  if (typeof r.structuredContent === "object" && r.structuredContent !== null) {
    out.structuredContent = { ...r.structuredContent, ignored_arguments: [...ignored] };
  }
  return out as R;
}

/** The parts of a zod object schema read here. */
interface ObjectSchema {
  shape: Record<string, unknown>;
}

/**
 * `handler` taking only the arguments `schema` names, reporting the others in its result (which
 * `recheck` then sees, as it grew); or `handler` itself for a tool whose input is not an object
 * schema.
 */
export function lenientHandler<H extends (...a: never[]) => unknown>(
  schema: unknown,
  handler: H,
  recheck: <R>(result: R) => R = (result) => result,
): H {
  const shape = (schema as Partial<ObjectSchema> | undefined)?.shape;
  if (typeof shape !== "object" || shape === null) return handler;
  const names = Object.keys(shape);
  const accepted = new Set(names);
  const wrapped = async (args: Record<string, unknown>, ...rest: unknown[]) => {
    const split = splitArguments(args ?? {}, accepted);
    const call = handler as unknown as (...a: unknown[]) => unknown;
    const result = await call(split.args, ...rest);
    if (split.ignored.length === 0) return result;
    return recheck(withIgnored(result, split.ignored, names));
  };
  return wrapped as unknown as H;
}
