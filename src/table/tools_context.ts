/** get_workspace_context: the first call of a new chat at the table. */

import { z } from "zod";
import { READ_ONLY } from "../tools/annotations.ts";
import { callerOf } from "../tools/caller.ts";
import { toolArgs } from "../tools/schema.ts";
import type { ToolRegistrar } from "../tools/registry.ts";
import { renderContext } from "./render.ts";
import { contextSchema } from "./schemas.ts";
import { getWorkspaceContext } from "./store_context.ts";
import { contextRead } from "./context_page.ts";
import { pagedResult } from "../tools/result_budget.ts";
import {
  contractDescription,
  fields,
  moreNotes,
  nonce,
  result,
  type TableToolDeps,
  textsAt,
} from "./tools_common.ts";
import { NOTES_FIELD, UNTRUSTED_FIELDS } from "../tools/results.ts";

/** Where a workspace context holds text others wrote. */
const CONTEXT_TEXTS = [
  ...textsAt("standing_rules[]", "decision"),
  ...textsAt("open_items.decisions_awaiting.items[]", "decision"),
  ...textsAt("open_items.latest_plan", "plan"),
  ...textsAt("open_items.handoffs_pending.items[]", "handoff"),
  ...textsAt("open_items.handoffs_inactive.items[]", "handoff"),
  ...textsAt("discussions[]", "discussion"),
  ...textsAt("quiet_discussions.items[]", "discussion"),
  ...textsAt("open_items.unread.items[]", "discussion"),
];

/** Registers get_workspace_context. */
export function registerContextTool(server: ToolRegistrar, t: TableToolDeps): void {
  const f = fields(t.settings);
  server.registerTool("get_workspace_context", {
    title: "Workspace context",
    description: contractDescription(
      "Call it first in every chat at the table: who you are, what waits for you (any workspace), unread, rules, decisions awaiting a person, plans, recent discussions.",
    ),
    inputSchema: toolArgs({
      workspace: f.workspace,
      limit: f.limit,
      quiet_for_days: z.number().optional().describe(
        `Days silent to count as quiet (default ${t.settings.staleDays})`,
      ),
    }),
    outputSchema: { ...UNTRUSTED_FIELDS, ...contextSchema, ...NOTES_FIELD },
    annotations: READ_ONLY,
  }, async (args, call) => {
    const whole = await getWorkspaceContext(t.ctx, callerOf(call, t.deps), args);
    const n = nonce();
    return pagedResult(contextRead(whole, (c, cut) => {
      const notes = [
        ...moreNotes(c, "raise limit to see more discussions"),
        ...(c.open_items.unread.messages > 0
          ? [
            `${c.open_items.unread.messages} message(s) unread for you in ${c.open_items.unread.discussions} discussion(s): get_discussion with unread_only=true reads them.`,
          ]
          : []),
        ...cut,
      ];
      const text = renderContext(c);
      return result(cut.length ? `${text}\n\n⚠ ${cut.join("\n")}` : text, c, {
        untrusted: { nonce: n, fields: CONTEXT_TEXTS },
        notes,
      });
    }));
  });
}
