/** What the stub model (stub_model.ts) and its vendor modules share: the shapes and SSE. */

/** One scripted tool call: the server's tool name (the CLI's prefix is found) and its arguments. */
export interface PlanStep {
  tool: string;
  args?: Record<string, unknown>;
}

/** The APIs the stub speaks. */
export type Vendor = "anthropic" | "gemini" | "openai";

/** One request a CLI sent, as received. */
export interface RecordedRequest {
  vendor: Vendor | "unknown";
  method: string;
  /** Path and query. */
  path: string;
  /** The parsed JSON body, the raw text when it was not JSON, or null. */
  body: unknown;
  /** What the stub answered: a plan step's index, "text", or an endpoint name. */
  answered: string;
  /** When it arrived (`Date.now()`). */
  at: number;
}

/** A tool call the model made and its result as the CLI showed it to the model. */
export interface SeenToolResult {
  vendor: Vendor;
  /** The tool name as the CLI declared it to the model (e.g. `mcp__handoff__get_state`). */
  name: string;
  /** The server's tool name from the plan step. */
  tool: string;
  callId: string;
  /** The arguments the model sent (as the stub produced them). */
  args: Record<string, unknown>;
  /** The result as the model saw it, flattened to one string (JSON for non-text parts). */
  text: string;
  /** True when the CLI flagged the result as an error (Anthropic `is_error`, Gemini `error`). */
  isError: boolean;
  /** The result part exactly as the CLI sent it. */
  raw: unknown;
}

/** The parsed call the stub decided on for one conversational request. */
export interface Turn {
  /** The plan step to call now, with the tool name resolved to the CLI's declared name. */
  call?: { name: string; args: Record<string, unknown>; id: string };
  /** The final text when the plan is done (or nothing in the plan fits). */
  text?: string;
}

/** What a vendor module tells the core about one request. */
export interface VendorRequest {
  /** The names of the tools the request declares to the model. */
  toolNames: string[];
  /** Tool results the conversation carries, in order. */
  results: Omit<SeenToolResult, "tool" | "args">[];
  /** The declared parameter names of a tool, when the vendor can tell. */
  paramsOf?(name: string): string[];
  /**
   * Tools the CLI names to its model without declaring them, to be loaded first by calling
   * `searchTool` (Claude Code 2.1.332's ToolSearch): absent when the request defers nothing.
   */
  deferred?: {
    searchTool: string;
    names: string[];
    query(names: string[]): Record<string, unknown>;
  };
}

/** One vendor's wire format. */
export interface VendorApi {
  vendor: Vendor;
  /** Whether `path` belongs to this API. */
  matches(path: string): boolean;
  /** Answers requests that are not a conversation turn (token counts, model lists), or null. */
  utility(req: Request, url: URL, body: unknown): Response | null;
  /** Reads what a conversational request declares and carries. */
  read(body: unknown): VendorRequest;
  /**
   * A harmless tool of the CLI's own the stub calls while the plan's next tool is not declared
   * yet (Codex may send its first turn before a stdio server has listed its tools).
   */
  waitTool?: string;
  /** Answers one turn, streaming when the request asked for it. */
  answer(turn: Turn, url: URL, body: unknown): Response;
}

/** A `text/event-stream` response of `events`, each `[eventName | null, data]`. */
export function sse(events: [string | null, unknown][]): Response {
  const text = events.map(([event, data]) =>
    `${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(data)}\n\n`
  ).join("");
  return new Response(text, {
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
  });
}

/** Flattens a tool result's content parts to the string a model reads. */
export function flatten(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content.map((part) =>
      part && typeof part === "object" && typeof (part as { text?: unknown }).text === "string"
        ? (part as { text: string }).text
        : JSON.stringify(part)
    ).join("\n");
  }
  return JSON.stringify(content);
}
