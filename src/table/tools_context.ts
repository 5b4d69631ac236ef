/** get_workspace_context: the first call of a new chat at the table. */

import { z } from "zod";
import { READ_ONLY } from "../mcp/annotations.ts";
import { callerOf } from "../mcp/caller.ts";
import { strictArgs } from "../mcp/schema.ts";
import type { ToolRegistrar } from "../mcp/registry.ts";
import { renderContext } from "./render.ts";
import { contextSchema } from "./schemas.ts";
import { getWorkspaceContext } from "./store_context.ts";
import { contractDescription, fields, result, type TableToolDeps } from "./tools_common.ts";

/** Registers get_workspace_context. */
export function registerContextTool(server: ToolRegistrar, t: TableToolDeps): void {
  const f = fields(t.settings);
  server.registerTool("get_workspace_context", {
    title: "Workspace context",
    description: contractDescription(
      "Call this first in every new chat at the table: who you are here, what waits for you (handoffs to accept, tasks, also in other workspaces), standing rules, decisions awaiting a person, current plans, task and handoff counts, and the most recently active discussions.",
    ),
    inputSchema: strictArgs({
      workspace: f.workspace,
      limit: f.limit,
      quiet_for_days: z.number().optional().describe(
        `A discussion with no message for this many days is listed as quiet (default ${t.settings.staleDays}; decimals allowed)`,
      ),
    }),
    outputSchema: contextSchema,
    annotations: READ_ONLY,
  }, async (args, call) => {
    const c = await getWorkspaceContext(t.ctx, callerOf(call, t.deps), args);
    return result(renderContext(c), c);
  });
}
