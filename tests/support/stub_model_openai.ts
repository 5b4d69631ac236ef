/** The OpenAI Responses API (streaming `POST /v1/responses`) as Codex uses it, for the stub. */

import { flatten, sse, type Turn, type VendorApi, type VendorRequest } from "./stub_model_wire.ts";

interface Item {
  type?: string;
  call_id?: string;
  name?: string;
  namespace?: string;
  output?: unknown;
  success?: boolean;
}
interface Tool {
  type?: string;
  name?: string;
  parameters?: { properties?: Record<string, unknown> };
  tools?: Tool[];
}
interface ResponsesBody {
  model?: string;
  stream?: boolean;
  input?: Item[];
  tools?: Tool[];
}

/**
 * Function tools by the name the stub calls them, also those nested in a namespace entry (Codex
 * declares each MCP server as a namespace `mcp__<server>`): those are named `<namespace>__<name>`.
 */
function functionsOf(tools: Tool[], namespace = ""): (Tool & { qualified: string })[] {
  return tools.flatMap((t) =>
    t.tools
      ? functionsOf(t.tools, t.name ?? "")
      : t.name
      ? [{ ...t, qualified: namespace ? `${namespace}__${t.name}` : t.name }]
      : []
  );
}

/** A qualified name split back into the call's `namespace` and `name`. */
function splitName(qualified: string, declared: string[]): { namespace?: string; name: string } {
  const at = qualified.lastIndexOf("__");
  return declared.includes(qualified) && at > 0 && qualified.startsWith("mcp__")
    ? { namespace: qualified.slice(0, at), name: qualified.slice(at + 2) }
    : { name: qualified };
}

function read(raw: unknown): VendorRequest {
  const body = (raw ?? {}) as ResponsesBody;
  const tools = functionsOf(body.tools ?? []);
  const names = new Map<string, string>();
  const results: VendorRequest["results"] = [];
  for (const item of body.input ?? []) {
    if (item.type === "function_call" && item.call_id) {
      names.set(item.call_id, item.namespace ? `${item.namespace}__${item.name}` : item.name ?? "");
    }
    if (item.type?.endsWith("_call_output") && item.call_id) {
      const output = item.output;
      results.push({
        vendor: "openai",
        name: names.get(item.call_id) ?? "",
        callId: item.call_id,
        text: flatten(
          output && typeof output === "object" && !Array.isArray(output) &&
            "content" in (output as object)
            ? (output as { content: unknown }).content
            : output,
        ),
        isError: item.success === false ||
          (typeof output === "object" && (output as { success?: unknown })?.success === false),
        raw: item,
      });
    }
  }
  return {
    toolNames: tools.map((t) => t.qualified),
    results,
    paramsOf: (name) =>
      Object.keys(tools.find((t) => t.qualified === name)?.parameters?.properties ?? {}),
  };
}

function itemOf(turn: Turn, declared: string[]): Record<string, unknown> {
  return turn.call
    ? {
      type: "function_call",
      id: `fc_${turn.call.id}`,
      call_id: turn.call.id,
      ...splitName(turn.call.name, declared),
      arguments: JSON.stringify(turn.call.args),
      status: "completed",
    }
    : {
      type: "message",
      id: `msg_${crypto.randomUUID().slice(0, 8)}`,
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: turn.text ?? "", annotations: [] }],
    };
}

function answer(turn: Turn, _url: URL, raw: unknown): Response {
  const body = (raw ?? {}) as ResponsesBody;
  const id = `resp_${crypto.randomUUID().replaceAll("-", "")}`;
  const item = itemOf(turn, functionsOf(body.tools ?? []).map((t) => t.qualified));
  const usage = {
    input_tokens: 10,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 5,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 15,
  };
  const response = {
    id,
    object: "response",
    status: "completed",
    model: body.model ?? "gpt-stub",
    output: [item],
    usage,
  };
  if (body.stream === false) return Response.json(response);
  const events: [string, unknown][] = [
    ["response.created", {
      type: "response.created",
      response: { ...response, status: "in_progress", output: [] },
    }],
    ["response.output_item.added", { type: "response.output_item.added", output_index: 0, item }],
  ];
  if (!turn.call) {
    events.push(["response.output_text.delta", {
      type: "response.output_text.delta",
      item_id: item.id,
      output_index: 0,
      content_index: 0,
      delta: turn.text ?? "",
    }]);
  }
  events.push(
    ["response.output_item.done", { type: "response.output_item.done", output_index: 0, item }],
    ["response.completed", { type: "response.completed", response }],
  );
  return sse(events);
}

/** Answers `POST /openai/v1/responses` (streaming or not) and the model list, under `/openai/`. */
export const openaiVendor: VendorApi = {
  vendor: "openai",
  matches: (path) => path.startsWith("/openai/"),
  waitTool: "list_mcp_resources",
  utility(_req, url) {
    if (url.pathname.endsWith("/models")) return Response.json({ object: "list", data: [] });
    return null;
  },
  read,
  answer,
};
