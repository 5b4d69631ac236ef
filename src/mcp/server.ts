/**
 * Builds MCP servers from the toolset list. Everything that is the same for every client (tool
 * definitions, zod schemas, their JSON Schemas, the Ajv validator, the instructions) is built once
 * per process in an `McpApp`; a connection (an SSE session, a stdio process) gets a light
 * `McpServer` that reuses them and owns only its session state, and stateless Streamable HTTP
 * shares one sessionless server per toolset choice (`http/streamable.ts`).
 */

import {
  AjvJsonSchemaValidator,
  ListToolsRequestSchema,
  McpServer,
  normalizeObjectSchema,
  type ServerCapabilities,
  toJsonSchemaCompat,
  type Tool,
} from "./sdk.ts";
import { fastRequests, leanToolCalls } from "./dispatch.ts";
import { z } from "zod";
import { IGNORED_ARGUMENTS, lenientHandler } from "./arguments.ts";
import { listedInput } from "./schema.ts";
import { NoticeBus, RESOURCE_LIST_CHANGED } from "../kit/notices.ts";
import { attachSession, SessionState } from "./session.ts";
import type { McpDeps, Toolset } from "./toolset.ts";

export type { McpDeps, Toolset } from "./toolset.ts";

/** The server's name and version, as clients see them. */
export const SERVER_INFO = { name: "handoff-mcp", version: "0.1.0" };

/** The MCP side of a process: toolsets registered once, served to any number of connections. */
export interface McpApp {
  /** The toolsets this app serves, in registration order. */
  readonly toolsets: readonly Toolset[];
  /**
   * A new server for one connection, exposing `toolsets` (a subset of the app's, in the app's
   * order; all by default). Connect it to one transport and close it when the connection ends.
   * A `stateless` server keeps no session: each tool call stands alone (stateless Streamable
   * HTTP, where one server answers every client).
   */
  server(toolsets?: readonly Toolset[], options?: { stateless?: boolean }): McpServer;
}

/** The registration methods a toolset may call; `register` must not touch anything else. */
const METHODS = ["registerTool", "registerPrompt", "registerResource"] as const;
type Method = typeof METHODS[number];

/** One registration call as a toolset made it, with its schemas already normalized. */
interface Registration {
  method: Method;
  args: unknown[];
  /** For a tool: the arguments each connection registers (see `record`). */
  served?: unknown[];
}

/** What a subset of toolsets shares across its connections. */
interface Variant {
  instructions: string;
  registrations: Registration[];
  /** The `tools/list` result, built on first use. */
  listing?: { tools: Tool[] };
}

/** Registers every toolset once and returns the app that serves connections from it. */
export function createMcpApp(given: McpDeps, toolsets: readonly Toolset[]): McpApp {
  const validator = new AjvJsonSchemaValidator();
  const notices = given.notices ?? new NoticeBus();
  const deps = { ...given, notices };
  const recorded = new Map(toolsets.map((t) => [t.name, record(t, deps, validator)]));
  const variants = new Map<string, Variant>();
  const variantOf = (subset: readonly Toolset[]): Variant => {
    const key = subset.map((t) => t.name).join(",");
    let variant = variants.get(key);
    if (variant === undefined) {
      variant = {
        instructions: instructionsOf(subset),
        registrations: subset.flatMap((t) => {
          const registrations = recorded.get(t.name);
          if (!registrations) throw new Error(`Toolset ${t.name} is not part of this server`);
          return registrations;
        }),
      };
      variants.set(key, variant);
    }
    return variant;
  };
  return {
    toolsets,
    server: (subset = toolsets, options = {}) =>
      connectionServer(variantOf(subset), validator, options.stateless === true, notices),
  };
}

/** A new `McpServer` exposing `toolsets`, for a caller that needs just one (tests, stdio). */
export function createMcpServer(deps: McpDeps, toolsets: readonly Toolset[]): McpServer {
  return createMcpApp(deps, toolsets).server();
}

function instructionsOf(toolsets: readonly Toolset[]): string {
  return [
    "handoff-mcp keeps AI work durable across chats, sessions and AI clients; everything here is stored and shared by every client of this server.",
    ...toolsets.map((t) => t.instructions),
  ].join("\n\n");
}

/**
 * Runs `toolset.register` once on a real server (so the SDK checks names and shapes as usual)
 * and keeps its calls to replay cheaply: a tool's raw zod shapes are replaced by the object
 * schemas the SDK built from them, so no connection builds them again.
 */
function record(
  toolset: Toolset,
  deps: McpDeps,
  validator: AjvJsonSchemaValidator,
): Registration[] {
  const template = new McpServer(SERVER_INFO, { jsonSchemaValidator: validator });
  const registrations: Registration[] = [];
  for (const method of METHODS) {
    const original = (template[method] as (...args: unknown[]) => unknown).bind(template);
    Object.defineProperty(template, method, {
      value: (...args: unknown[]) => {
        if (method === "registerTool") {
          const config = args[1] as ToolConfig;
          args = [
            args[0],
            { ...config, outputSchema: withIgnoredField(config.outputSchema) },
            args[2],
          ];
        }
        const registered = original(...args);
        let served: unknown[] | undefined;
        if (method === "registerTool") {
          const { inputSchema, outputSchema } = registered as ToolConfig;
          args = [args[0], { ...(args[1] as ToolConfig), inputSchema, outputSchema }, args[2]];
          // Connections serve a tool without its output schema: tools/list still shows it (from
          // `toolListing`), but the SDK would otherwise re-validate our own structured content
          // against it on every call; schema_test walks real results against the listing instead.
          const handler = lenientHandler(inputSchema, args[2] as (...a: never[]) => unknown);
          served = [args[0], { ...(args[1] as ToolConfig), outputSchema: undefined }, handler];
        }
        registrations.push({ method, args, served });
        return registered;
      },
    });
  }
  toolset.register(template, deps);
  return registrations;
}

/** The parts of a tool's config (and of the SDK's registered tool) this module reads. */
interface ToolConfig {
  title?: string;
  description?: string;
  inputSchema?: unknown;
  outputSchema?: unknown;
  annotations?: Tool["annotations"];
  _meta?: Record<string, unknown>;
}

/** A server for one connection: replays the registrations with handlers bound to its session. */
function connectionServer(
  variant: Variant,
  validator: AjvJsonSchemaValidator,
  stateless: boolean,
  notices: NoticeBus,
): McpServer {
  const server = new McpServer(SERVER_INFO, {
    instructions: variant.instructions,
    capabilities: { logging: {} },
    jsonSchemaValidator: validator,
  });
  leanToolCalls(server);
  const session = new SessionState();
  let tools = false;
  for (const { method, args, served } of variant.registrations) {
    let replayed = served ?? args;
    if (method === "registerTool") tools = true;
    if (method === "registerTool" && !stateless) {
      const [name, config, handler] = replayed as [
        string,
        ToolConfig,
        (...a: unknown[]) => unknown,
      ];
      // The SDK calls a tool handler with `extra` last: (args, extra), or (extra) without input.
      const bound = (...a: unknown[]) => {
        attachSession(a[a.length - 1] as object, session);
        return handler(...a);
      };
      replayed = [name, config, bound];
    }
    (server[method] as (...a: unknown[]) => unknown).apply(server, replayed);
  }
  if (tools) {
    // The SDK turns zod into JSON Schema on every tools/list; the answer never changes here.
    server.server.setRequestHandler(
      ListToolsRequestSchema,
      () => variant.listing ??= { tools: toolListing(variant.registrations) },
    );
  }
  const announces = !stateless &&
    variant.registrations.some((r) => r.method === "registerResource");
  quietListChanged(server, announces);
  const connect = server.connect.bind(server);
  server.connect = (transport) => {
    fastRequests(server, transport);
    if (announces) announceResourceLists(server, notices);
    return connect(transport);
  };
  return server;
}

/**
 * Tells a connected session when the resource list may have changed (a project was created):
 * clients such as Gemini CLI read `resources/list` once at connect and would never see it.
 * Only a session that can carry a notification (stdio, legacy SSE) listens, until it closes.
 */
function announceResourceLists(server: McpServer, notices: NoticeBus): void {
  const stop = notices.listen(RESOURCE_LIST_CHANGED, () => {
    if (server.isConnected()) server.sendResourceListChanged();
  });
  const closed = server.server.onclose;
  server.server.onclose = () => {
    stop();
    closed?.();
  };
}

/**
 * The SDK advertises list_changed as soon as a tool, prompt or resource is registered, but the
 * tool and prompt lists never change while a server runs, so no such notification is ever sent.
 * The resource list grows with projects: a session that `announces` says so (and is told). Only
 * the kinds present are touched: advertising prompts without any would invite prompts/list.
 */
function quietListChanged(server: McpServer, announces: boolean): void {
  const present = (server.server as unknown as { getCapabilities(): ServerCapabilities })
    .getCapabilities();
  const lists = (["tools", "prompts", "resources"] as const).filter((kind) => present[kind]);
  server.server.registerCapabilities(
    Object.fromEntries(
      lists.map((kind) => [kind, {
        ...present[kind],
        listChanged: kind === "resources" && announces,
      }]),
    ),
  );
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

const EMPTY_INPUT = { type: "object" as const, properties: {} };

/** The `tools/list` entries, built exactly as the SDK's `McpServer` builds them. */
function toolListing(registrations: readonly Registration[]): Tool[] {
  const jsonSchema = (schema: unknown, pipeStrategy: "input" | "output") => {
    const object = normalizeObjectSchema(schema as never);
    return object ? toJsonSchemaCompat(object, { strictUnions: true, pipeStrategy }) : undefined;
  };
  return registrations.filter((r) => r.method === "registerTool").map((r) => {
    const [name, config] = r.args as [string, ToolConfig];
    const tool: Tool = {
      name,
      title: config.title,
      description: config.description,
      inputSchema: listedInput(
        config.inputSchema,
        jsonSchema(config.inputSchema, "input") ?? EMPTY_INPUT,
      ) as Tool["inputSchema"],
      annotations: config.annotations,
      execution: { taskSupport: "forbidden" },
      _meta: config._meta,
    };
    const output = jsonSchema(config.outputSchema, "output");
    if (output) tool.outputSchema = output as Tool["outputSchema"];
    return tool;
  });
}
