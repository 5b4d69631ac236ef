/**
 * A stub model API on 127.0.0.1 for driving the real agent CLIs (Claude Code, Gemini CLI, Codex)
 * without a network: it speaks enough of the Anthropic Messages, Gemini and OpenAI Responses APIs
 * for each CLI, answers a conversation with the next tool call of a scripted plan (one a turn,
 * then a final text), and records every request body, so a test reads exactly what the model was
 * shown (the tool results as the CLI put them in its next request).
 *
 * Which step a conversation is at is counted from the tool results it carries, not from the
 * number of requests, because the CLIs also send side requests (titles, routing, quota checks):
 * those declare no plan tool and get a plain text answer.
 */

import { anthropicVendor } from "./stub_model_anthropic.ts";
import { geminiVendor } from "./stub_model_gemini.ts";
import { openaiVendor } from "./stub_model_openai.ts";
import type {
  PlanStep,
  RecordedRequest,
  SeenToolResult,
  Turn,
  VendorApi,
  VendorRequest,
} from "./stub_model_wire.ts";

export type { PlanStep, RecordedRequest, SeenToolResult, Vendor } from "./stub_model_wire.ts";

/** Options of {@link startStubModel}. */
export interface StubModelOptions {
  /** The tool calls to make, one a turn, in order. */
  plan: PlanStep[];
  /** The text answered once the plan is done. */
  finalText?: string;
  /**
   * Tools a deferred-tool search loads besides the plan's (the bench loads every tool of the
   * server to measure what the CLI then declares).
   */
  preload?: string[];
}

/** A running stub model. */
export interface StubModel {
  /** `http://127.0.0.1:<port>`: the Anthropic and Gemini base URL. */
  url: string;
  /** `<url>/openai/v1`: the base URL of an OpenAI Responses provider (Codex). */
  openaiUrl: string;
  /** Every request received, in order. */
  requests: RecordedRequest[];
  /** Requests on paths no vendor API here knows (a CLI calling something unexpected). */
  unknown(): RecordedRequest[];
  /**
   * The results of the plan's calls as the CLIs sent them back, each once (by call id), in the
   * order first seen (not those of the vendor's `waitTool`).
   */
  toolResults(): SeenToolResult[];
  /**
   * The results of the stub's deferred-tool searches (Claude Code 2.1.332's ToolSearch) as the
   * CLI sent them back: the tool definitions it showed its model, each search once.
   */
  searchResults(): SeenToolResult[];
  close(): Promise<void>;
}

const VENDORS: VendorApi[] = [anthropicVendor, geminiVendor, openaiVendor];

/** Resolves a plan tool name to the name the CLI declared (exact, `…__tool`, then `…_tool`). */
export function resolveTool(tool: string, declared: string[]): string | undefined {
  return declared.find((n) => n === tool) ??
    declared.find((n) => n.endsWith(`__${tool}`)) ??
    declared.filter((n) => n.endsWith(`_${tool}`)).sort((a, b) => a.length - b.length)[0];
}

/** Starts the stub on a free loopback port. */
export function startStubModel(options: StubModelOptions): Promise<StubModel> {
  const requests: RecordedRequest[] = [];
  const seen = new Map<string, SeenToolResult>();
  const searched = new Map<string, SeenToolResult>();
  const calls = new Map<string, { tool: string; args: Record<string, unknown> }>();
  let nextId = 0;

  /** Calls of the CLI's own tools (waiting, loading deferred tools): not plan steps. */
  const aside = new Set<string>();
  /** Plan tools a deferred-tool search has loaded (by the name the CLI gave them). */
  const loaded = new Set<string>();
  /** How many deferred-tool searches the stub made. */
  let searches = 0;

  function turnFor(api: VendorApi, read: VendorRequest): { turn: Turn; answered: string } {
    for (const r of read.results) {
      if (r.callId.startsWith("search_") && aside.has(r.callId) && !searched.has(r.callId)) {
        searched.set(r.callId, { ...r, tool: r.name, args: {} });
      }
    }
    const planResults = read.results.filter((r) => !aside.has(r.callId));
    for (const r of planResults) {
      const made = calls.get(r.callId);
      if (!seen.has(r.callId)) {
        seen.set(r.callId, { ...r, tool: made?.tool ?? r.name, args: made?.args ?? {} });
      }
    }
    const done = planResults.length;
    const step = options.plan[done];
    const name = step && resolveTool(step.tool, [...read.toolNames, ...loaded]);
    const deferred = read.deferred;
    if (step && !name && deferred && searches < 3) {
      // The CLI names the plan's tools but declares them only once searched for (Claude Code
      // 2.1.332's ToolSearch): load every plan tool it lists, in one call, as a model would.
      const wanted = new Set<string>();
      const tools = [...options.plan.slice(done).map((s) => s.tool), ...options.preload ?? []];
      for (const tool of tools) {
        const found = resolveTool(tool, deferred.names);
        if (found) wanted.add(found);
      }
      if (wanted.size > 0) {
        for (const n of wanted) loaded.add(n);
        const id = `search_${++nextId}`;
        aside.add(id);
        searches++;
        return {
          turn: { call: { name: deferred.searchTool, args: deferred.query([...wanted]), id } },
          answered: "search",
        };
      }
    }
    const waited = read.results.length - done;
    if (step && !name && api.waitTool && read.toolNames.includes(api.waitTool) && waited < 5) {
      // The plan's tool is not declared yet (its MCP server is still starting): call the CLI's
      // own harmless tool, as a model looking for it would, and try again next turn.
      const id = `wait_${++nextId}`;
      aside.add(id);
      return { turn: { call: { name: api.waitTool, args: {}, id } }, answered: "wait" };
    }
    if (!step || !name) {
      return { turn: { text: options.finalText ?? "Done." }, answered: "text" };
    }
    const args = { ...step.args };
    // Gemini CLI declares `wait_for_previous` on every tool and its model sets it; do the same.
    if (api.vendor === "gemini" && read.paramsOf?.(name).includes("wait_for_previous")) {
      args.wait_for_previous = done > 0;
    }
    const id = `call_${++nextId}`;
    calls.set(id, { tool: step.tool, args });
    return { turn: { call: { name, args, id } }, answered: `step ${done}` };
  }

  async function handle(req: Request): Promise<Response> {
    const url = new URL(req.url);
    const text = req.method === "GET" ? "" : await req.text();
    let body: unknown = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      body = text;
    }
    const path = url.pathname + url.search;
    const api = VENDORS.find((v) => v.matches(url.pathname));
    const record: RecordedRequest = {
      vendor: api?.vendor ?? "unknown",
      method: req.method,
      path,
      body,
      answered: "404",
      at: Date.now(),
    };
    requests.push(record);
    if (!api) return new Response("not found", { status: 404 });
    const utility = api.utility(req, url, body);
    if (utility) {
      record.answered = "utility";
      return utility;
    }
    const { turn, answered } = turnFor(api, api.read(body));
    record.answered = answered;
    return api.answer(turn, url, body);
  }

  const ac = new AbortController();
  return new Promise((resolve) => {
    const server = Deno.serve({
      hostname: "127.0.0.1",
      port: 0,
      signal: ac.signal,
      onListen: () => {},
    }, handle);
    const { port } = server.addr as Deno.NetAddr;
    resolve({
      url: `http://127.0.0.1:${port}`,
      openaiUrl: `http://127.0.0.1:${port}/openai/v1`,
      requests,
      unknown: () => requests.filter((r) => r.vendor === "unknown"),
      toolResults: () => [...seen.values()],
      searchResults: () => [...searched.values()],
      async close() {
        ac.abort();
        await server.finished;
      },
    });
  });
}
