/** The Anthropic Messages API as Claude Code uses it, for the stub model (stub_model.ts). */

import { flatten, sse, type Turn, type VendorApi, type VendorRequest } from "./stub_model_wire.ts";

interface Block {
  type: string;
  id?: string;
  name?: string;
  tool_use_id?: string;
  content?: unknown;
  is_error?: boolean;
}
interface MessagesBody {
  model?: string;
  system?: string | { type: string; text?: string }[];
  stream?: boolean;
  tools?: { name: string; input_schema?: { properties?: Record<string, unknown> } }[];
  messages?: { role: string; content: string | Block[] }[];
}

function read(raw: unknown): VendorRequest {
  const body = (raw ?? {}) as MessagesBody;
  const tools = body.tools ?? [];
  const names = new Map<string, string>();
  const results: VendorRequest["results"] = [];
  for (const message of body.messages ?? []) {
    if (typeof message.content === "string") continue;
    for (const block of message.content) {
      if (block.type === "tool_use" && block.id) names.set(block.id, block.name ?? "");
      if (block.type === "tool_result" && block.tool_use_id) {
        results.push({
          vendor: "anthropic",
          name: names.get(block.tool_use_id) ?? "",
          callId: block.tool_use_id,
          text: flatten(block.content ?? ""),
          isError: block.is_error === true,
          raw: block,
        });
      }
    }
  }
  const toolNames = tools.map((t) => t.name);
  return {
    toolNames,
    results,
    paramsOf: (name) =>
      Object.keys(tools.find((t) => t.name === name)?.input_schema?.properties ?? {}),
    deferred: toolNames.includes(TOOL_SEARCH)
      ? { searchTool: TOOL_SEARCH, names: deferredNames(body), query: selectQuery }
      : undefined,
  };
}

/** Claude Code's tool that loads deferred tools' definitions (2.1.332 defers every MCP tool). */
const TOOL_SEARCH = "ToolSearch";

/** ToolSearch's exact-selection query, as its description documents it. */
function selectQuery(names: string[]): Record<string, unknown> {
  return { query: `select:${names.join(",")}` };
}

/**
 * The tool names Claude Code lists to its model as deferred: the lines after "deferred tools"
 * in a system text (or a system reminder in a message), up to the first blank line.
 */
function deferredNames(body: MessagesBody): string[] {
  const texts: string[] = [];
  if (typeof body.system === "string") texts.push(body.system);
  else for (const part of body.system ?? []) texts.push(part.text ?? "");
  for (const message of body.messages ?? []) {
    if (typeof message.content === "string") texts.push(message.content);
    else {
      for (const block of message.content) if (block.type === "text") texts.push(flatten([block]));
    }
  }
  const names = new Set<string>();
  for (const text of texts) {
    for (const section of text.split(/deferred tools[^\n]*\n/i).slice(1)) {
      for (const line of section.split("\n")) {
        if (!/^[A-Za-z0-9_-]+$/.test(line.trim())) break;
        names.add(line.trim());
      }
    }
  }
  return [...names];
}

function blocksOf(turn: Turn): Record<string, unknown>[] {
  return turn.call
    ? [{ type: "tool_use", id: turn.call.id, name: turn.call.name, input: turn.call.args }]
    : [{ type: "text", text: turn.text ?? "" }];
}

function answer(turn: Turn, _url: URL, raw: unknown): Response {
  const body = (raw ?? {}) as MessagesBody;
  const id = `msg_${crypto.randomUUID().replaceAll("-", "")}`;
  const stopReason = turn.call ? "tool_use" : "end_turn";
  const usage = { input_tokens: 10, output_tokens: 5 };
  const model = body.model ?? "claude-stub";
  if (!body.stream) {
    return Response.json({
      id,
      type: "message",
      role: "assistant",
      model,
      content: blocksOf(turn),
      stop_reason: stopReason,
      stop_sequence: null,
      usage,
    });
  }
  const start = turn.call
    ? { type: "tool_use", id: turn.call.id, name: turn.call.name, input: {} }
    : { type: "text", text: "" };
  const delta = turn.call
    ? { type: "input_json_delta", partial_json: JSON.stringify(turn.call.args) }
    : { type: "text_delta", text: turn.text ?? "" };
  return sse([
    ["message_start", {
      type: "message_start",
      message: {
        id,
        type: "message",
        role: "assistant",
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 1 },
      },
    }],
    ["content_block_start", { type: "content_block_start", index: 0, content_block: start }],
    ["content_block_delta", { type: "content_block_delta", index: 0, delta }],
    ["content_block_stop", { type: "content_block_stop", index: 0 }],
    ["message_delta", {
      type: "message_delta",
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: 5 },
    }],
    ["message_stop", { type: "message_stop" }],
  ]);
}

/** Answers `POST /v1/messages` (streaming or not), `count_tokens` and the model list. */
export const anthropicVendor: VendorApi = {
  vendor: "anthropic",
  matches: (path) => path.startsWith("/v1/messages") || path.startsWith("/v1/models"),
  utility(_req, url) {
    if (url.pathname === "/v1/messages/count_tokens") return Response.json({ input_tokens: 10 });
    if (url.pathname.startsWith("/v1/models")) {
      const model = {
        type: "model",
        id: "claude-sonnet-4-5",
        display_name: "Claude (stub)",
        created_at: "2025-01-01T00:00:00Z",
      };
      return Response.json(
        url.pathname === "/v1/models"
          ? { data: [model], has_more: false, first_id: model.id, last_id: model.id }
          : model,
      );
    }
    return null;
  },
  read,
  answer,
};
