/**
 * Shorter paths through the SDK for the two steps every tool call takes.
 *
 * Sorting. The SDK's `Protocol` sorts every message it
 * receives by trying zod schemas in turn (result response, then error response, then request):
 * a request costs two failed parses and one full one, tens of microseconds, although every
 * transport this server uses has already checked the message against `JSONRPCMessageSchema`.
 * Here a request whose envelope is plainly well formed goes straight to the SDK's own request
 * handling; anything else (responses, notifications, odd shapes) takes the SDK's path unchanged.
 *
 * tools/call. The SDK parses a tools/call request twice against the same schema (once in
 * `Protocol`, again in `Server`) and then re-parses the tool's result against
 * `CallToolResultSchema`. Here a plainly well-formed call (a string name, arguments an object if
 * any, no task) is not parsed at all: its envelope was checked on arrival, and the schema would
 * only copy it. Anything else is parsed once, failing exactly as the SDK's first parse fails.
 * A result goes out as the tool made it (our tools' results are pinned by their tests).
 * Task-augmented calls keep the SDK's whole path.
 *
 * The call itself. `McpServer` then checks the arguments with an asynchronous parse and runs the
 * tool through three more awaited steps (one checks an output schema our served tools do not
 * have). For a plain call to a plain tool (enabled, no task support, no output schema) whose
 * arguments parse, the tool runs here after one synchronous parse of the same schema, and its
 * failures become the same error results; everything else (unknown tools, refused arguments)
 * goes to `McpServer`, which answers it as it always does. A tool may add a quick parse of its
 * usual arguments (`parseQuickly`), tried before the schema.
 *
 * The SDK is pinned (deno.json); `dispatch_test.ts` fails if the internals used here move, and
 * checks that answers are the same as the SDK's own, byte for byte.
 */

import {
  CallToolRequestSchema,
  ErrorCode,
  type JSONRPCMessage,
  McpError,
  type McpServer,
  type MessageExtraInfo,
  normalizeObjectSchema,
  safeParse,
  type Transport,
} from "./sdk.ts";
import { errorResult } from "./results.ts";

type RequestHandler = (request: unknown, extra: unknown) => unknown;

/** The internals of the SDK's `Protocol` used here. */
interface ProtocolInternals {
  /** Handles a request once sorted. */
  _onrequest?: (request: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  /** Request handlers by method, each wrapped in its parse. */
  _requestHandlers?: Map<string, RequestHandler>;
  setRequestHandler(schema: unknown, handler: RequestHandler): void;
}

/**
 * Makes `server` parse each tools/call request once and pass its result through unparsed.
 * Call it before any tool is registered on `server`.
 */
export function leanToolCalls(server: McpServer): void {
  const protocol = server.server as unknown as ProtocolInternals;
  const register = protocol.setRequestHandler.bind(protocol);
  protocol.setRequestHandler = (schema, handler) => {
    register(schema, handler);
    const handlers = protocol._requestHandlers;
    const full = handlers?.get("tools/call");
    if (schema !== CallToolRequestSchema || handlers === undefined || full === undefined) return;
    handlers.set("tools/call", function leanToolCall(request, extra) {
      if (isPlainToolCall(request)) {
        return directCall(server, request as PlainToolCall, extra) ??
          Promise.resolve(handler(request, extra));
      }
      const parsed = CallToolRequestSchema.safeParse(request);
      if (!parsed.success) throw parsed.error;
      if (parsed.data.params.task !== undefined) return full(request, extra);
      return Promise.resolve(handler(parsed.data, extra));
    });
  };
}

/**
 * Makes `server` take requests arriving on `transport` by the short path. Call it before
 * `server.connect(transport)`: it takes effect when the SDK starts the transport, after the SDK
 * has installed its own message handler and before any message can arrive.
 */
export function fastRequests(server: McpServer, transport: Transport): void {
  const protocol = server.server as unknown as ProtocolInternals;
  const start = transport.start.bind(transport);
  transport.start = () => {
    const sorted = transport.onmessage;
    const onrequest = protocol._onrequest?.bind(protocol);
    if (sorted !== undefined && onrequest !== undefined) {
      transport.onmessage = (message, extra) => {
        if (isRequestEnvelope(message)) onrequest(message, extra);
        else sorted(message, extra);
      };
    }
    return start();
  };
}

/**
 * True when `message` has exactly the envelope of a JSON-RPC request as the SDK's
 * `JSONRPCRequestSchema` requires it: version "2.0", a string or integer id, a string method,
 * params (if any) an object whose `_meta` (if any) is an object with a string or integer
 * progress token (if any) and no related task, and no other top-level member. Any doubt leaves it to the SDK.
 */
export function isRequestEnvelope(message: unknown): message is JSONRPCMessage {
  if (typeof message !== "object" || message === null || Array.isArray(message)) return false;
  const m = message as Record<string, unknown>;
  let members = 0;
  for (const key in m) {
    if (key !== "jsonrpc" && key !== "id" && key !== "method" && key !== "params") return false;
    members++;
  }
  if (m.jsonrpc !== "2.0" || typeof m.method !== "string") return false;
  if (typeof m.id !== "string" && !Number.isSafeInteger(m.id)) return false;
  if (!("params" in m)) return members === 3;
  if (!isPlainObject(m.params)) return false;
  const meta = (m.params as Record<string, unknown>)._meta;
  if (meta === undefined) return true;
  if (!isPlainObject(meta)) return false;
  // A request tied to a task (`_meta` names one) is rare: the SDK checks that one itself.
  if (RELATED_TASK in (meta as object)) return false;
  const token = (meta as Record<string, unknown>).progressToken;
  return token === undefined || typeof token === "string" || Number.isSafeInteger(token);
}

const RELATED_TASK = "io.modelcontextprotocol/related-task";

/** A tools/call request as `isPlainToolCall` admits it. */
interface PlainToolCall {
  params: { name: string; arguments?: Record<string, unknown> };
}

/** The parts of the SDK's registered tool (and of `McpServer`) a direct call reads. */
interface RegisteredTool {
  enabled: boolean;
  inputSchema?: unknown;
  outputSchema?: unknown;
  execution?: { taskSupport?: string };
  handler: (...args: unknown[]) => unknown;
}
interface McpServerInternals {
  _registeredTools: Record<string, RegisteredTool | undefined>;
  _maxToolInputElements?: number;
}

/** Quick parses of tool arguments, by the input schema `McpServer` holds for the tool. */
const quickParsers = new WeakMap<object, QuickParse>();

/**
 * The arguments as the tool's input schema would parse them, for arguments this function is sure
 * of; `undefined` for anything else, which the schema then parses (and refuses, with its message).
 */
export type QuickParse = (args: Record<string, unknown>) => unknown;

/**
 * Lets a plain call of `tool` (as `registerTool` returned it) try `quick` before the tool's
 * schema. zod parses a tool's usual arguments in microseconds, but as one of the coldest steps of
 * a call that arrives every few milliseconds it costs tens of them; a hand-written check of the
 * common shapes costs next to nothing. `quick` must agree with the schema (test it against it).
 */
export function parseQuickly(tool: { inputSchema?: unknown }, quick: QuickParse): void {
  if (typeof tool.inputSchema === "object" && tool.inputSchema !== null) {
    quickParsers.set(tool.inputSchema, quick);
  }
}

/** The quick parse registered for `tool`, if any (for tests). */
export function quickParseOf(tool: { inputSchema?: unknown }): QuickParse | undefined {
  return quickParsers.get(tool.inputSchema as object);
}

/**
 * Runs a plain tool as `McpServer`'s tools/call handler would, without its extra turns; or
 * `undefined` when `McpServer` must answer (see the module comment). Relies on the tools/call
 * handler being `McpServer`'s own, as it is on every server `mcp/server.ts` builds.
 */
function directCall(
  server: McpServer,
  request: PlainToolCall,
  extra: unknown,
): Promise<unknown> | undefined {
  const internals = server as unknown as McpServerInternals;
  const tool = internals._registeredTools[request.params.name];
  if (
    tool === undefined || !tool.enabled || tool.outputSchema !== undefined ||
    "createTask" in tool.handler || internals._maxToolInputElements !== undefined ||
    (tool.execution?.taskSupport !== undefined && tool.execution.taskSupport !== "forbidden")
  ) {
    return undefined;
  }
  let args: unknown = quickParsers.get(tool.inputSchema as object)?.(
    request.params.arguments ?? {},
  );
  if (tool.inputSchema !== undefined && args === undefined) {
    const schema = normalizeObjectSchema(tool.inputSchema as never) ?? tool.inputSchema;
    let parsed: ReturnType<typeof safeParse>;
    try {
      parsed = safeParse(schema as never, request.params.arguments ?? {});
    } catch {
      return undefined; // a schema that must be parsed asynchronously
    }
    if (!parsed.success) return undefined;
    args = parsed.data;
  }
  return runTool(tool, args, extra);
}

async function runTool(tool: RegisteredTool, args: unknown, extra: unknown): Promise<unknown> {
  try {
    return await (tool.inputSchema === undefined ? tool.handler(extra) : tool.handler(args, extra));
  } catch (error) {
    if (error instanceof McpError && error.code === ErrorCode.UrlElicitationRequired) throw error;
    return errorResult(error instanceof Error ? error.message : String(error));
  }
}

/**
 * True when `request` (a request whose envelope, `_meta` included, was checked on arrival) has
 * params that `CallToolRequestSchema` takes as they are: a string name, arguments (if any) a
 * plain object, and no task. Its parse would only copy such a request, dropping members no
 * handler reads.
 */
export function isPlainToolCall(request: unknown): boolean {
  const params = (request as { params?: unknown }).params;
  if (!isRecord(params)) return false;
  const { name, arguments: args, task, _meta } = params as Record<string, unknown>;
  return typeof name === "string" && task === undefined &&
    (args === undefined || isRecord(args)) && (_meta === undefined || isRecord(_meta));
}

/** An object as zod's record and object schemas take it: a plain object, not an array. */
function isRecord(value: unknown): boolean {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function isPlainObject(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
