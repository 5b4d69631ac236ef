/** The handoff toolset: carry a whole conversation from one AI client to another. */

import { type HandoffDeps, toolContext } from "./context.ts";
import {
  registerListTool,
  registerListView,
  registerLoadTool,
  registerSearchTool,
  registerStatsTool,
} from "./tools_read.ts";
import {
  registerAppendTool,
  registerClearTool,
  registerCommentTools,
  registerMergeTool,
  registerSaveTool,
} from "./tools_write.ts";
import type { ToolRegistrar } from "../tools/registry.ts";

/** What the model is told about this toolset at initialize. */
export const HANDOFF_INSTRUCTIONS =
  "To move a chat between clients: handoff_save the WHOLE conversation verbatim; in the other, handoff_list or search, then handoff_load.";

/** Registers the handoff tools and the MCP Apps view of handoff_list. */
export function registerHandoffTools(server: ToolRegistrar, deps: HandoffDeps): void {
  const ctx = toolContext(deps);
  registerSaveTool(server, ctx);
  registerListTool(server, ctx);
  registerLoadTool(server, ctx);
  registerAppendTool(server, ctx);
  registerMergeTool(server, ctx);
  registerSearchTool(server, ctx);
  registerCommentTools(server, ctx);
  registerClearTool(server, ctx);
  registerStatsTool(server, ctx);
  registerListView(server);
}
