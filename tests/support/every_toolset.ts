/**
 * One call into every toolset, made the same way by any SDK client (v1 or v2, any transport), so
 * each era and transport is shown to reach focus, handoff, thinking, table and search.
 */

import assert from "node:assert/strict";

/** What both SDK clients offer for calling a tool. */
export interface ToolCaller {
  callTool(request: { name: string; arguments?: Record<string, unknown> }): Promise<unknown>;
}

/** The call made into each toolset, and a field its structured result must hold. */
const CALLS: { toolset: string; name: string; args: Record<string, unknown>; field: string }[] = [
  { toolset: "focus", name: "list_projects", args: {}, field: "projects" },
  { toolset: "handoff", name: "handoff_list", args: {}, field: "handoffs" },
  {
    toolset: "thinking",
    name: "sequentialthinking",
    args: { thought: "one", nextThoughtNeeded: false, thoughtNumber: 1, totalThoughts: 1 },
    field: "sequenceId",
  },
  { toolset: "table", name: "get_workspace_context", args: {}, field: "you_are" },
  { toolset: "search", name: "search", args: { query: "one" }, field: "results" },
];

/** Calls one tool of every toolset through `client`; `via` names the client in failures. */
export async function callEveryToolset(client: ToolCaller, via: string): Promise<void> {
  for (const { toolset, name, args, field } of CALLS) {
    const result = await client.callTool({ name, arguments: args }) as {
      isError?: boolean;
      structuredContent?: Record<string, unknown>;
      content?: { type: string; text?: string }[];
    };
    const text = (result.content ?? []).map((c) => c.text ?? "").join("\n");
    assert.notEqual(result.isError, true, `${via}: ${toolset} ${name} failed: ${text}`);
    assert.ok(
      result.structuredContent !== undefined && field in result.structuredContent,
      `${via}: ${toolset} ${name} returns ${field}`,
    );
  }
}
