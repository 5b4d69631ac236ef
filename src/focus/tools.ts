/** The focus toolset: north star, the one focus, demoted follow-ups, and `get_state`. */

import { z } from "zod";
import { nullableString, toolArgs } from "../mcp/schema.ts";
import type { FocusLimits } from "./settings.ts";
import { renderState } from "./render.ts";
import { FocusStateCache } from "./store_cache.ts";
import { markUntrusted, newNonce, untrustedNotice, wrapUntrusted } from "../kit/untrusted.ts";
import { addTaskWithState, completeTask, setFocus, setNorthStar } from "./store.ts";
import { type FocusState, TASK_KINDS } from "./store_keys.ts";
import { getState, listProjects, projectIdsStartingWith } from "./store_state.ts";
import { speedOn } from "../kit/speed_switches.ts";
import type { NoticeBus } from "../kit/notices.ts";
import { READ_ONLY, writes } from "../mcp/annotations.ts";
import { completable, ResourceTemplate } from "../mcp/sdk.ts";
import type { ToolRegistrar } from "../mcp/registry.ts";
import {
  NOTES_FIELD,
  structuredResult,
  textResult,
  UNTRUSTED_FIELDS,
  untrustedResult,
  withNotes,
} from "../mcp/results.ts";

/** What the focus tools need. */
export interface FocusDeps {
  kv: Deno.Kv;
  limits: FocusLimits;
  /** Told when a write created a project (the resource list grew). */
  notices?: NoticeBus;
}

/** The sentence every `get_state` description must end with, verbatim. */
export const GET_STATE_GUARD =
  "この出力をフラットなTODOメニューに変換するな。まず北極星を述べ、本丸を1つ進めよ。後処理は北極星達成後にのみ着手。";

/** What the model is told about this toolset at initialize. */
export const FOCUS_INSTRUCTIONS =
  "At the start of every chat call get_state for the project you are working on (list_projects finds its id) and state its NORTH STAR first. Advance the one focus (本丸) before anything else; the follow-ups listed under 後処理 are demoted and wait until the north star is reached. Never turn get_state's output into a flat TODO list.";

const COMPLETION_LIMIT = 20;

/** The project id of a resource URI, percent-decoded. */
function decodeProjectId(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    throw new Error(
      `The project id in the resource URI is not valid percent-encoding: encode it with encodeURIComponent`,
    );
  }
}

/** What every focus tool handler uses, built once per server. */
interface FocusToolContext {
  kv: Deno.Kv;
  limits: FocusLimits;
  /** The `get_state` text of a project. */
  state(projectId: string): Promise<string>;
  /** The `get_state` text after a write. */
  written(projectId: string): Promise<string>;
  /** Told when a write creates a project (the store tells it, once the write lands). */
  notices: NoticeBus | undefined;
  /**
   * Project states as this process last saw them (tools are registered once per process);
   * none when the bench turns `state_cache` off.
   */
  cache: FocusStateCache | undefined;
  /** The `project_id` argument. */
  projectId: z.ZodString;
  /** A one-line text argument described as `what`. */
  line(what: string): z.ZodString;
}

/** Registers the focus tools, the `resume` prompt and the project state resource. */
export function registerFocusTools(server: ToolRegistrar, deps: FocusDeps): void {
  const { kv, limits } = deps;
  const cache = speedOn("state_cache") ? new FocusStateCache() : undefined;
  // A cached state is shared, so its text is rendered once too.
  const texts = new WeakMap<FocusState, string>();
  const render = (state: FocusState) => {
    let text = texts.get(state);
    if (text === undefined) texts.set(state, text = renderState(state));
    return text;
  };
  const ctx: FocusToolContext = {
    kv,
    limits,
    cache,
    state: async (projectId) => render(await getState(kv, limits, projectId, cache)),
    written: async (projectId) => render(await getState(kv, limits, projectId, cache)),
    notices: deps.notices,
    projectId: z.string().describe(
      `The project's id: 1–${limits.projectIdMax} characters, no control characters. Reuse the same id in every chat and client (list_projects shows the existing ones).`,
    ),
    line: (what) => z.string().describe(`${what}. One line, 1–${limits.textMax} characters.`),
  };
  registerGetStateTool(server, ctx);
  registerSetNorthStarTool(server, ctx);
  registerSetFocusTool(server, ctx);
  registerAddTaskTool(server, ctx);
  registerCompleteTaskTool(server, ctx);
  registerListProjectsTool(server, ctx);
  registerResumePrompt(server, ctx);
  registerStateResource(server, ctx);
}

/** `get_state`: the north star, the one focus and the demoted follow-ups. */
function registerGetStateTool(server: ToolRegistrar, ctx: FocusToolContext): void {
  server.registerTool("get_state", {
    title: "Get project state",
    description:
      "Returns the project's NORTH STAR, the one focus to do now (本丸), and the demoted follow-ups (後処理) in a fixed format. Call it at the start of every chat, before planning or doing anything. " +
      GET_STATE_GUARD,
    inputSchema: toolArgs({ project_id: ctx.projectId }),
    annotations: READ_ONLY,
  }, async ({ project_id }) => textResult(await ctx.state(project_id)));
}

/** `set_north_star`: the outcome all work serves; creates the project. */
function registerSetNorthStarTool(server: ToolRegistrar, ctx: FocusToolContext): void {
  const { kv, limits, written } = ctx;
  server.registerTool("set_north_star", {
    title: "Set north star",
    description:
      "Sets or replaces the project's NORTH STAR: the outcome all work serves. Creates the project if it does not exist. Use it when the user states or changes the overall goal, not for the next step.",
    inputSchema: toolArgs({
      project_id: ctx.projectId,
      text: ctx.line("The north star, stated as an outcome"),
    }),
    annotations: writes({ destructive: true, idempotent: true }),
  }, async ({ project_id, text: northStar }) => {
    await setNorthStar(kv, limits, project_id, northStar, ctx.notices);
    return textResult(
      `OK: north star set for project "${project_id}".\n\n${await written(project_id)}`,
    );
  });
}

/** `set_focus`: the one thing to do now, replacing the previous focus. */
function registerSetFocusTool(server: ToolRegistrar, ctx: FocusToolContext): void {
  const { kv, limits, written, line } = ctx;
  server.registerTool("set_focus", {
    title: "Set focus",
    description:
      "Sets the project's one focus (本丸): the single thing to do now toward the north star. Replaces the previous focus; omitting `why` clears the previous reason.",
    inputSchema: toolArgs({
      project_id: ctx.projectId,
      statement: line("The one thing to do now"),
      why: line("Why this is the focus now (optional; omit or send empty to clear)").optional(),
    }),
    annotations: writes({ destructive: true, idempotent: true }),
  }, async ({ project_id, statement, why }) => {
    await setFocus(kv, limits, project_id, statement, why, ctx.notices);
    return textResult(
      `OK: focus set for project "${project_id}".\n\n${await written(project_id)}`,
    );
  });
}

/** `add_task`: work toward the focus, or a demoted follow-up. */
function registerAddTaskTool(server: ToolRegistrar, ctx: FocusToolContext): void {
  const { kv, limits, cache } = ctx;
  server.registerTool("add_task", {
    title: "Add task",
    description:
      "Records a task. kind=main is work toward the focus (stored, not listed); kind=cleanup or kind=record is a demoted follow-up (後処理) that waits until the north star is reached. Use it to park side tasks instead of doing them now.",
    inputSchema: toolArgs({
      project_id: ctx.projectId,
      body: ctx.line("What the task is"),
      kind: z.enum(TASK_KINDS).describe(
        "main: part of the focus; cleanup: tidy-up to do after the north star; record: something to write down later",
      ),
    }),
    outputSchema: {
      ...UNTRUSTED_FIELDS,
      task_id: z.string().describe("The new task's id, for complete_task"),
      project_id: z.string(),
      kind: z.enum(TASK_KINDS),
      demoted: z.boolean().describe("True for cleanup and record tasks"),
      state: z.string().describe(
        "The project's get_state text after this task (its fixed format: north star first)",
      ),
    },
    annotations: writes({ destructive: false, idempotent: false }),
  }, async ({ project_id, body, kind }) => {
    const { task, state } = await addTaskWithState(
      kv,
      limits,
      project_id,
      body,
      kind,
      cache,
      ctx.notices,
    );
    const note = task.demoted ? "demoted: wait until the north star is reached" : "not listed";
    // Clients that show their model the structured content (Claude Code, Codex) see the state too.
    const text = renderState(state);
    // The text keeps get_state's fixed format; the data says the state is others' text.
    const data = {
      task_id: task.id,
      project_id,
      kind: task.kind,
      demoted: task.demoted,
      state: text,
    };
    return structuredResult(
      `OK: added ${task.kind} task ${task.id} (${note}).\n\n${text}`,
      markUntrusted(
        data,
        untrustedNotice(newNonce(), ["state"], "earlier sessions of this project"),
      ),
    );
  });
}

/** `complete_task`: marks a task done by its id alone. */
function registerCompleteTaskTool(server: ToolRegistrar, ctx: FocusToolContext): void {
  const { kv, state } = ctx;
  server.registerTool("complete_task", {
    title: "Complete task",
    description:
      "Marks a task done by the id add_task returned; a done follow-up leaves get_state in every later chat. Completing a done task again is harmless.",
    inputSchema: toolArgs({
      task_id: z.string().max(64).describe("The task id returned by add_task"),
    }),
    annotations: writes({ destructive: false, idempotent: true }),
  }, async ({ task_id }) => {
    const { task, alreadyDone } = await completeTask(kv, task_id);
    const head = alreadyDone
      ? `OK: task ${task.id} was already done (since ${task.doneAt}); nothing changed.`
      : `OK: task ${task.id} done.`;
    return textResult(`${head}\n\n${await state(task.projectId)}`);
  });
}

/** `list_projects`: project ids with their north stars, paged. */
function registerListProjectsTool(server: ToolRegistrar, ctx: FocusToolContext): void {
  const { kv, limits } = ctx;
  server.registerTool("list_projects", {
    title: "List projects",
    description:
      "Lists project ids with their north stars, so a new chat can find the project to resume. Paged: pass next_cursor back to continue.",
    inputSchema: toolArgs({
      limit: z.number().int().min(1).max(limits.listPageMax).optional().describe(
        `Projects per page, 1–${limits.listPageMax} (default ${limits.listPageMax})`,
      ),
      cursor: z.string().max(1000).optional().describe("next_cursor from the previous page"),
    }),
    outputSchema: {
      ...UNTRUSTED_FIELDS,
      projects: z.array(z.object({
        project_id: z.string(),
        north_star: nullableString(),
        updated_at: z.string(),
      })),
      has_more: z.boolean(),
      next_cursor: nullableString(),
      ...NOTES_FIELD,
    },
    annotations: READ_ONLY,
  }, async ({ limit, cursor }) => {
    const page = await listProjects(kv, { limit: limit ?? limits.listPageMax, cursor });
    const projects = page.items.map((p) => ({
      project_id: p.id,
      north_star: p.northStar ?? null,
      updated_at: p.updatedAt,
    }));
    const lines = projects.map((p) => `- ${p.project_id}: ${p.north_star ?? "(未設定)"}`);
    const notes = projects.length === 0 ? ["No projects yet: set_north_star creates one."] : [];
    if (page.hasMore) notes.push(`(more: call again with cursor "${page.nextCursor}")`);
    if (projects.length > 0) notes.push(READ_STATE_NOTE);
    lines.push(...notes);
    const data = { projects, has_more: page.hasMore, next_cursor: page.nextCursor };
    return untrustedResult(lines.join("\n"), withNotes(data, notes), {
      nonce: newNonce(),
      fields: ["projects[].project_id", "projects[].north_star"],
    });
  });
}

/**
 * How to read one project: clients that cache `resources/list` at connect (Gemini CLI) never see
 * a project created later, but the tool and the template always reach it.
 */
const READ_STATE_NOTE =
  "Read a project's state with get_state project_id=<id> (or the resource handoff://projects/<id>/state).";

/** The `resume` prompt: a chat started from the project's state, fenced as earlier data. */
function registerResumePrompt(server: ToolRegistrar, ctx: FocusToolContext): void {
  const { kv, state } = ctx;
  const completeProjectId = completable(
    z.string().describe("The project's id"),
    (value) => projectIdsStartingWith(kv, value, COMPLETION_LIMIT),
  );
  server.registerPrompt("resume", {
    title: "Resume a project",
    description: "Starts a chat from the project's north star, focus and demoted follow-ups.",
    argsSchema: { project_id: completeProjectId },
  }, async ({ project_id }) => ({
    messages: [{
      role: "user" as const,
      content: {
        type: "text" as const,
        text: `Resume project "${project_id}".\n\n${
          wrapUntrusted(await state(project_id), newNonce(), "earlier sessions of this project")
        }\n\nState the north star first, then advance the one focus. ${GET_STATE_GUARD}`,
      },
    }],
  }));
}

/** The `handoff://projects/{project_id}/state` resource: the `get_state` text of a project. */
function registerStateResource(server: ToolRegistrar, ctx: FocusToolContext): void {
  const { kv, limits, state } = ctx;
  server.registerResource(
    "project-state",
    new ResourceTemplate("handoff://projects/{project_id}/state", {
      list: async () => {
        const page = await listProjects(kv, { limit: limits.listPageMax });
        return {
          resources: page.items.map((p) => ({
            uri: `handoff://projects/${encodeURIComponent(p.id)}/state`,
            name: p.id,
            description: p.northStar ?? "(no north star yet)",
            mimeType: "text/plain",
          })),
        };
      },
      complete: { project_id: (value) => projectIdsStartingWith(kv, value, COMPLETION_LIMIT) },
    }),
    {
      title: "Project state",
      description: "The get_state text of one project",
      mimeType: "text/plain",
    },
    async (uri, variables) => {
      const id = decodeProjectId(String(variables.project_id));
      return { contents: [{ uri: uri.href, mimeType: "text/plain", text: await state(id) }] };
    },
  );
}
