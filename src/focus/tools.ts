/** The focus toolset: north star, the one focus, demoted follow-ups, and `get_state`. */

import { z } from "zod";
import { cutPage, pagedResult } from "../tools/result_budget.ts";
import { nullableString, toolArgs } from "../tools/schema.ts";
import type { FocusLimits } from "./settings.ts";
import { renderState } from "./render.ts";
import { FocusStateCache } from "./store_cache.ts";
import { markUntrusted, newNonce, untrustedNotice, wrapUntrusted } from "../kit/untrusted.ts";
import { addTaskWithState, completeTask, setFocus, setNorthStar } from "./store.ts";
import { type FocusState, TASK_KINDS } from "./store_keys.ts";
import { getState, listProjects, projectIdsStartingWith } from "./store_state.ts";
import { speedOn } from "../kit/speed_switches.ts";
import type { NoticeBus } from "../kit/notices.ts";
import { READ_ONLY, writes } from "../tools/annotations.ts";
import { completable, ResourceTemplate } from "../tools/sdk.ts";
import type { ToolRegistrar } from "../tools/registry.ts";
import {
  NOTES_FIELD,
  structuredResult,
  textResult,
  UNTRUSTED_FIELDS,
  untrustedResult,
  withNotes,
} from "../tools/results.ts";

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
  "At the start of every chat call get_state (list_projects finds the project) and state its NORTH STAR first; advance the one focus, leave follow-ups for later, never make it a flat TODO list.";

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
      "Same in every client",
    ),
    line: (what) => z.string().describe(what),
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
      "NORTH STAR, one focus (本丸) and follow-ups (後処理) in a fixed format. Call it first in every chat. " +
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
      "Sets the NORTH STAR, the outcome all work serves (not the next step); creates the project.",
    inputSchema: toolArgs({
      project_id: ctx.projectId,
      text: ctx.line("The north star, as an outcome"),
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
      "Sets the one focus (本丸), the next step to the north star; replaces the last and its why.",
    inputSchema: toolArgs({
      project_id: ctx.projectId,
      statement: line("The one thing to do now"),
      why: line("Why").optional(),
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
      "Records a task: main (part of the focus, not listed), or cleanup or record: follow-ups (後処理) for after the north star. Park side tasks here.",
    inputSchema: toolArgs({
      project_id: ctx.projectId,
      body: ctx.line("The task"),
      kind: z.enum(TASK_KINDS).describe(
        "main, cleanup (tidy up) or record (write down)",
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
      "Marks an add_task task done; a done follow-up leaves get_state. Repeating it is harmless.",
    inputSchema: toolArgs({
      task_id: z.string().max(64).describe("The id add_task returned"),
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
      "Lists project ids and north stars, to find the project to resume. Paged by next_cursor.",
    inputSchema: toolArgs({
      limit: z.number().int().min(1).max(limits.listPageMax).optional().describe(
        `Per page (default ${limits.listPageMax})`,
      ),
      cursor: z.string().max(1000).optional().describe("next_cursor of the last page"),
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
    const whole = await listProjects(kv, { limit: limit ?? limits.listPageMax, cursor });
    const nonce = newNonce();
    // A page the result budget cuts reads on from the cursor after its last project.
    return pagedResult({
      count: whole.items.length,
      page: (k) => {
        const { cut, ...page } = cutPage(whole, k);
        const projects = page.items.map((p) => ({
          project_id: p.id,
          north_star: p.northStar ?? null,
          updated_at: p.updatedAt,
        }));
        const lines = projects.map((p) => `- ${p.project_id}: ${p.north_star ?? "(未設定)"}`);
        const notes = projects.length === 0 ? ["No projects yet: set_north_star creates one."] : [];
        if (page.hasMore) {
          notes.push(
            `(${
              cut ? "cut to fit RESULT_MAX_TOKENS; " : ""
            }more: call again with cursor "${page.nextCursor}")`,
          );
        }
        if (projects.length > 0) notes.push(READ_STATE_NOTE);
        lines.push(...notes);
        const data = { projects, has_more: page.hasMore, next_cursor: page.nextCursor };
        return untrustedResult(lines.join("\n"), withNotes(data, notes), {
          nonce,
          fields: ["projects[].project_id", "projects[].north_star"],
        });
      },
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
