/**
 * The session brief a hook prints when a session starts: the project's `get_state` text exactly,
 * what waits for the caller across the table's workspaces (a line each), and the latest handoff
 * tagged with the project. Everything stored comes inside the untrusted-data wrapper.
 */

import { newNonce, wrapUntrusted } from "../kit/untrusted.ts";
import { renderState } from "../focus/render.ts";
import type { HookConnection } from "./connection.ts";
import { type ProjectId, projectTag } from "./project_id.ts";

/** Most lines of `get_state` text shown; the rest is named, not shown. */
export const BRIEF_STATE_MAX_LINES = 20;
/** Most workspaces listed under what waits for the caller. */
export const BRIEF_WORKSPACES_MAX = 5;

/** One workspace where something waits for the caller. */
interface WaitingLine {
  workspace: string;
  handoffs: string[];
  tasks: string[];
  total: number;
}

/** The brief's text for `project`, read through `conn`'s tools. */
export async function buildBrief(conn: HookConnection, project: ProjectId): Promise<string> {
  const state = conn.tools.has("get_state") ? await stateText(conn, project.id) : undefined;
  const waiting = conn.tools.has("get_workspace_context") ? await waitingLines(conn) : undefined;
  const latest = conn.tools.has("handoff_search") ? await latestHandoff(conn, project) : undefined;
  const body: string[] = [];
  if (state !== undefined) body.push(state, "");
  if (waiting !== undefined) body.push(...waiting, "");
  if (latest !== undefined) body.push(latest);
  const empty =
    state === renderState({ projectId: project.id, project: null, focus: null, followUps: [] }) &&
    waiting?.length === 1 && latest?.startsWith("Latest handoff: none");
  const from = project.source === "flag" ? "" : ` (from the ${project.source})`;
  return [
    `handoff-mcp session brief for project "${project.id}"${from}, read from ${conn.where}:`,
    wrapUntrusted(body.join("\n").trimEnd(), newNonce(), "earlier sessions of this project"),
    empty
      ? `Nothing is stored for "${project.id}" yet: set a north star with set_north_star to start.`
      : "State the north star first, then advance the one focus; load a handoff only when the user's task continues it.",
  ].join("\n");
}

/** The `get_state` text, cut after `BRIEF_STATE_MAX_LINES` lines with a note. */
async function stateText(conn: HookConnection, projectId: string): Promise<string> {
  const result = await conn.call("get_state", { project_id: projectId });
  if (result.isError) return `get_state refused the project id: ${result.text}`;
  const lines = result.text.split("\n");
  if (lines.length <= BRIEF_STATE_MAX_LINES) return result.text;
  return [
    ...lines.slice(0, BRIEF_STATE_MAX_LINES),
    `  … ${lines.length - BRIEF_STATE_MAX_LINES} more lines: call get_state for all of them`,
  ].join("\n");
}

/** A heading line, then one line per workspace where something waits for the caller. */
async function waitingLines(conn: HookConnection): Promise<string[]> {
  const result = await conn.call("get_workspace_context", { limit: 1 });
  if (result.isError) return [`Waiting for you: unknown (${result.text})`];
  const s = result.structured as {
    workspace: string;
    you_are: { name: string };
    open_items: {
      waiting_for_you: {
        unaccepted: { handoffs: string[]; tasks: string[] };
        in_progress: { tasks: string[] };
        total: number;
      };
    };
    elsewhere: { workspaces: WaitingLine[] };
  };
  const here = s.open_items.waiting_for_you;
  const all: WaitingLine[] = [
    {
      workspace: s.workspace,
      handoffs: here.unaccepted.handoffs,
      tasks: [...here.unaccepted.tasks, ...here.in_progress.tasks],
      total: here.total,
    },
    ...s.elsewhere.workspaces,
  ].filter((w) => w.total > 0);
  const who = s.you_are.name;
  if (all.length === 0) return [`Waiting for you (${who}) in the table's workspaces: nothing.`];
  const shown = all.slice(0, BRIEF_WORKSPACES_MAX).map((w) =>
    `- "${w.workspace}": ${
      [
        w.handoffs.length ? `handoffs to accept ${ids(w.handoffs)}` : "",
        w.tasks.length ? `tasks ${ids(w.tasks)}` : "",
      ].filter(Boolean).join("; ")
    } (${w.total})`
  );
  if (all.length > BRIEF_WORKSPACES_MAX) {
    shown.push(
      `- … ${all.length - BRIEF_WORKSPACES_MAX} more workspaces: call get_workspace_context`,
    );
  }
  return [`Waiting for you (${who}) in the table's workspaces:`, ...shown];
}

/** At most three ids, then how many more. */
function ids(list: string[]): string {
  const more = list.length > 3 ? ` +${list.length - 3} more` : "";
  return list.slice(0, 3).join(", ") + more;
}

/** One line on the newest handoff tagged with the project. */
async function latestHandoff(conn: HookConnection, project: ProjectId): Promise<string> {
  const tag = projectTag(project.id);
  const result = await conn.call("handoff_search", { tags: [tag], limit: 1 });
  if (result.isError) return `Latest handoff: unknown (${result.text})`;
  const [h] = (result.structured.handoffs ?? []) as {
    key: string;
    title: string;
    from_ai: string | null;
    updated_at: string;
  }[];
  if (h === undefined) return `Latest handoff: none tagged ${tag}.`;
  return `Latest handoff tagged ${tag}: "${h.title}" from ${h.from_ai ?? "an unnamed client"}, ` +
    `${h.updated_at}, key ${h.key} (handoff_load it to read the conversation).`;
}
