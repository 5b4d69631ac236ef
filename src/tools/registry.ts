/**
 * A toolset's registrations, recorded once per process as definitions: the arguments of the
 * SDK's own `registerTool` / `registerPrompt` / `registerResource`, with every tool's schemas
 * converted once and its handler wrapped once. Any number of servers are then made from them
 * (`mcp/server.ts` registers each definition with the same public method and arguments) without
 * running the toolset's `register`, or building its schemas, again.
 */

import { z } from "zod";
import { IGNORED_ARGUMENTS, lenientHandler } from "./arguments.ts";
import type { CallToolResult, Icon, McpServer, ServerContext, Tool } from "./sdk.ts";
import type { UriTopics } from "../kit/notices.ts";
import { MCP_APP_MIME } from "./app_mime.ts";
import {
  budgeted,
  heldToBudget,
  IGNORED_RESERVE,
  lessReserve,
  RESULT_CHARS_META,
} from "./result_budget.ts";
import type { ResultBudget } from "../kit/budget.ts";
import { listedTool } from "./listing.ts";

/** The result limits of the server settings (`Config`), all the recorder reads of them. */
interface ResultLimits {
  resultMaxTokens: number;
  resultMaxChars: number;
}

/** A tool's input: an object schema, or the raw shape of one. */
type Input = z.ZodType | z.ZodRawShape;

/** The arguments a tool's handler gets for `I`. */
type ArgsOf<I extends Input> = I extends z.ZodType ? z.output<I>
  : I extends z.ZodRawShape ? z.output<z.ZodObject<I>>
  : never;

/** A tool as a toolset declares it (the SDK's `registerTool` config, schemas as zod). */
export interface ToolConfig<I extends Input> {
  title?: string;
  description?: string;
  inputSchema: I;
  /** The shape of `structuredContent` (an object schema or its raw shape), checked by the SDK. */
  outputSchema?: z.ZodType | z.ZodRawShape;
  annotations?: Tool["annotations"];
  /** Its icons; the toolset's (`Toolset.icons`) when none are given. */
  icons?: Icon[];
  _meta?: Record<string, unknown>;
}

/**
 * What a toolset registers on: `registerTool` (with zod schemas), and the SDK's own
 * `registerPrompt` and `registerResource`.
 */
export interface ToolRegistrar {
  /** A tool without arguments: its handler gets the context alone, as the SDK calls it. */
  registerTool(
    name: string,
    config: Omit<ToolConfig<z.ZodRawShape>, "inputSchema">,
    handler: (ctx: ServerContext) => CallToolResult | Promise<CallToolResult>,
  ): void;
  registerTool<I extends Input>(
    name: string,
    config: ToolConfig<I>,
    handler: (args: ArgsOf<I>, ctx: ServerContext) => CallToolResult | Promise<CallToolResult>,
  ): void;
  registerPrompt: McpServer["registerPrompt"];
  registerResource: McpServer["registerResource"];
  /**
   * Declares which of the toolset's resource URIs tell of changes, and by which notice topic:
   * a session reaching the toolset may subscribe to them (`resources/subscribe`, or a 2026
   * `subscriptions/listen`).
   */
  resourceNotices(uriTopics: UriTopics): void;
}

/** A tool handler, as the SDK calls it: `(args, ctx)`, or `(ctx)` for a tool without input. */
export type AnyHandler = (...a: unknown[]) => unknown;

/** One tool, as a server registers it: `server.registerTool(name, config, handler)`. */
export interface ToolDefinition {
  name: string;
  /** The toolset that registered it. */
  toolset: string;
  /** The `registerTool` config: schemas converted once, icons and `_meta` filled in. */
  config: Record<string, unknown>;
  /** The handler: unknown arguments dropped and named, the result held to the budget. */
  handler: AnyHandler;
  /** Its `tools/list` entry (`listing.ts`), made on first use and kept. */
  listed(): Tool;
}

/** One prompt or resource: the arguments of the SDK's `registerPrompt` or `registerResource`. */
export interface OtherDefinition {
  kind: "prompt" | "resource";
  toolset: string;
  args: unknown[];
}

/** What toolsets registered, in registration order. */
export interface Definitions {
  tools: Map<string, ToolDefinition>;
  others: OtherDefinition[];
  /** The resource URIs that tell of changes (`resourceNotices`), by toolset. */
  uriTopics: { toolset: string; uris: UriTopics }[];
}

/**
 * Runs each toolset's `register` once on a recorder and returns what they registered. Typed by
 * what it reads, so this file needs nothing of `toolset.ts` (which imports it).
 */
export function recordToolsets<D extends { config: ResultLimits }>(
  toolsets: readonly {
    name: string;
    register(server: ToolRegistrar, deps: D): void;
    icons?: Icon[];
  }[],
  deps: D,
): Definitions {
  const into: Definitions = { tools: new Map(), others: [], uriTopics: [] };
  const budget = { tokens: deps.config.resultMaxTokens, chars: deps.config.resultMaxChars };
  for (const toolset of toolsets) toolset.register(recorder(into, budget, toolset), deps);
  return into;
}

/**
 * The recorder a toolset registers on. Every tool's handler is held to `budget`
 * (`result_budget.ts`): pages are cut a little below it, leaving room for the line
 * `ignored_arguments` may add, and a result that line was added to is checked again whole.
 */
function recorder(
  into: Definitions,
  budget: ResultBudget,
  { name: toolset, icons }: { name: string; icons?: Icon[] },
): ToolRegistrar {
  const registerTool = (name: string, given: Record<string, unknown>, handler: AnyHandler) => {
    if (into.tools.has(name)) throw new Error(`Tool ${name} is registered twice`);
    const inputSchema = objectSchema(given.inputSchema);
    const config = {
      ...(icons === undefined ? {} : { icons }),
      ...given,
      // Claude Code would otherwise swap any result over 50,000 characters for a preview.
      _meta: { ...(given._meta as object), [RESULT_CHARS_META]: budget.chars },
      inputSchema: convertedOnce(inputSchema),
      outputSchema: convertedOnce(objectSchema(withIgnoredField(given.outputSchema))),
    };
    // Arguments the tool does not take are dropped before it runs and named in its result.
    // A tool that writes is never refused after its write landed (see `budgeted`).
    const writes = (given.annotations as { readOnlyHint?: boolean } | undefined)?.readOnlyHint !==
      true;
    const inner = budgeted(handler, lessReserve(budget, IGNORED_RESERVE), { writes });
    let listed: Tool | undefined;
    into.tools.set(name, {
      name,
      toolset,
      config,
      handler: lenientHandler(inputSchema, inner, (r) => heldToBudget(r, budget, { writes })),
      listed: () => listed ??= listedTool(name, config),
    });
  };
  const registerPrompt = (name: string, config: Record<string, unknown>, handler: AnyHandler) => {
    const args = [name, { ...config, argsSchema: objectSchema(config.argsSchema) }, handler];
    into.others.push({ kind: "prompt", toolset, args });
  };
  const registerResource = (...args: unknown[]) => {
    // The read callback comes last; what a resource gives a model keeps a result's budget. An
    // MCP Apps view is the server's own HTML for the host to render, never shown to a model.
    const last = args.length - 1;
    const meta = args[2] as { mimeType?: string } | undefined;
    if (typeof args[last] === "function" && meta?.mimeType !== MCP_APP_MIME) {
      args[last] = budgeted(args[last] as AnyHandler, budget);
    }
    into.others.push({ kind: "resource", toolset, args });
  };
  const resourceNotices = (uris: UriTopics) => into.uriTopics.push({ toolset, uris });
  return {
    registerTool,
    registerPrompt,
    registerResource,
    resourceNotices,
  } as unknown as ToolRegistrar;
}

/** The Standard Schema face of a schema, as the SDK reads it. */
interface StandardFace {
  "~standard": {
    version: 1;
    vendor: string;
    validate: (value: unknown, options?: unknown) => unknown;
    jsonSchema?: {
      input: (options: { target: string }) => Record<string, unknown>;
      output: (options: { target: string }) => Record<string, unknown>;
    };
  };
}

/**
 * `schema` (a zod object schema) behind its own Standard Schema face whose JSON Schema is made
 * once per target and kept. The SDK converts a tool's schemas to JSON Schema on each server that
 * registers the tool (for the 2026 header checks, for the shape of a result), and a request
 * server registers its tool anew for every call: without this, every call would convert the
 * input and output schemas again. Validation is zod's own, unchanged. The JSON is frozen: it is
 * shared by every server.
 */
function convertedOnce(schema: unknown): unknown {
  const face = (schema as Partial<StandardFace> | undefined)?.["~standard"];
  const json = face?.jsonSchema;
  if (face === undefined || json === undefined) return schema;
  const memo = (convert: (options: { target: string }) => Record<string, unknown>) => {
    const made = new Map<string, Record<string, unknown>>();
    return (options: { target: string }) => {
      const key = JSON.stringify(options);
      let converted = made.get(key);
      if (converted === undefined) made.set(key, converted = deepFreeze(convert(options)));
      return converted;
    };
  };
  const standard: StandardFace["~standard"] = {
    version: 1,
    vendor: face.vendor,
    validate: (value, options) => face.validate(value, options),
    jsonSchema: { input: memo(json.input), output: memo(json.output) },
  };
  return { "~standard": standard };
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/**
 * A tool's output schema as a toolset gave it (a shape of zod fields, or a zod object) with the
 * optional `ignored_arguments` every tool may report; none stays none (a text-only tool).
 */
function withIgnoredField(schema: unknown): unknown {
  if (schema === undefined) return undefined;
  if (schema instanceof z.ZodObject) return schema.extend(IGNORED_ARGUMENTS);
  return { ...(schema as object), ...IGNORED_ARGUMENTS };
}

/**
 * A raw zod shape (`{ name: z.string() }`) as the object schema the SDK would wrap it in, built
 * once here instead of on every server; a schema object (or nothing) as it is.
 */
function objectSchema(schema: unknown): unknown {
  if (schema === undefined || schema === null || typeof schema !== "object") return schema;
  if ("~standard" in schema) return schema;
  return z.object(schema as z.ZodRawShape);
}
