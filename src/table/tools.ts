/** The table toolset's tools, registered in one order. */

import type { ToolRegistrar } from "../tools/registry.ts";
import type { McpDeps } from "../tools/toolset.ts";
import type { TableSettings } from "./settings.ts";
import { tableCtx } from "./store_common.ts";
import { registerContextTool } from "./tools_context.ts";
import { registerDecisionTools } from "./tools_decisions.ts";
import { registerDiscussionTools } from "./tools_discussions.ts";
import { registerTableResources } from "./tools_resources.ts";
import { registerTaskTools } from "./tools_tasks.ts";

/** What the model is told about this toolset at initialize. */
export const TABLE_INSTRUCTIONS =
  "table is shared by AIs and people: start with get_workspace_context. Only a person's approval code makes a verdict human; hand work over with create_handoff.";

/** Registers every table tool and resource on `server`. */
export function registerTableTools(
  server: ToolRegistrar,
  deps: McpDeps,
  settings: TableSettings,
): void {
  const t = { deps, settings, ctx: tableCtx(deps.kv, settings, deps.notices) };
  registerContextTool(server, t);
  registerDiscussionTools(server, t);
  registerDecisionTools(server, t);
  registerTaskTools(server, t);
  registerTableResources(server, t);
}
