/**
 * `get_workspace_context` held to the result budget: its lists are the items, and a page that
 * does not fit shows fewer rows of each (the same number, `rows`, for every list), never a part
 * of a row. Each list cut says so, with the tool and arguments that read it whole.
 */

import type { PagedRead } from "../tools/result_budget.ts";
import type { WorkspaceContext } from "./store_context.ts";

/** Where each cut list is read whole, in the words of a note. */
const READ_WHOLE = {
  standing_rules: "get_decisions with status=approved",
  participants: "get_participants",
  decisions_awaiting: "get_decisions with status=proposed",
  handoffs_pending: "get_handoffs",
  handoffs_inactive: "get_handoffs",
  unread: "get_discussion with unread_only=true for each discussion",
  discussions: "get_workspace_context with a smaller limit, or get_discussion for one",
  quiet_discussions: "get_workspace_context with a smaller limit",
  elsewhere: "get_workspace_context with each workspace named",
} as const;

/** The number of rows of `c`'s longest list: the most a page may show of any. */
export function longestList(c: WorkspaceContext): number {
  const o = c.open_items;
  return Math.max(
    c.standing_rules.length,
    c.participants.length,
    o.decisions_awaiting.items.length,
    o.handoffs_pending.items.length,
    o.handoffs_inactive.items.length,
    o.unread.items.length,
    c.discussions.length,
    c.quiet_discussions.items.length,
    c.elsewhere.workspaces.length,
  );
}

/** `c` with at most `rows` rows in each list, and the notes naming the lists cut. */
export function contextRows(
  c: WorkspaceContext,
  rows: number,
): { context: WorkspaceContext; cut: string[] } {
  const cut: string[] = [];
  const take = <T>(items: T[], name: keyof typeof READ_WHOLE): T[] => {
    if (items.length <= rows) return items;
    cut.push(`${name} shows ${rows} of ${items.length}: ${READ_WHOLE[name]} reads them all`);
    return items.slice(0, rows);
  };
  const o = c.open_items;
  const context: WorkspaceContext = {
    ...c,
    standing_rules: take(c.standing_rules, "standing_rules"),
    participants: take(c.participants, "participants"),
    open_items: {
      ...o,
      decisions_awaiting: {
        ...o.decisions_awaiting,
        items: take(o.decisions_awaiting.items, "decisions_awaiting"),
      },
      handoffs_pending: {
        ...o.handoffs_pending,
        items: take(o.handoffs_pending.items, "handoffs_pending"),
      },
      handoffs_inactive: {
        ...o.handoffs_inactive,
        items: take(o.handoffs_inactive.items, "handoffs_inactive"),
      },
      unread: { ...o.unread, items: take(o.unread.items, "unread") },
    },
    discussions: take(c.discussions, "discussions"),
    quiet_discussions: {
      ...c.quiet_discussions,
      items: take(c.quiet_discussions.items, "quiet_discussions"),
    },
    elsewhere: { ...c.elsewhere, workspaces: take(c.elsewhere.workspaces, "elsewhere") },
  };
  const handoffs = context.open_items.handoffs_pending;
  handoffs.has_more ||= handoffs.items.length < o.handoffs_pending.items.length;
  context.open_items.unread.has_more ||= context.open_items.unread.items.length <
    o.unread.items.length;
  context.has_more ||= context.discussions.length < c.discussions.length;
  context.quiet_discussions.has_more ||= context.quiet_discussions.items.length <
    c.quiet_discussions.items.length;
  return { context, cut };
}

/**
 * The paged read of `c`: page `rows` shows at most that many rows of each list, each list cut
 * named in the notes `build` gets (with "cut to fit RESULT_MAX_TOKENS" first).
 */
export function contextRead(
  c: WorkspaceContext,
  build: (context: WorkspaceContext, cut: string[]) => unknown,
): PagedRead {
  const longest = longestList(c);
  return {
    count: longest,
    allowEmpty: true,
    page: (rows) => {
      const { context, cut } = contextRows(c, rows);
      const notes = cut.length === 0
        ? []
        : [`Cut to fit RESULT_MAX_TOKENS (at most ${rows} rows a list): ${cut.join("; ")}.`];
      return build(context, notes);
    },
  };
}
