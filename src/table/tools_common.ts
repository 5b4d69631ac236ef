/** What every table tool shares: the contract line, argument fields, results and the caller. */

import { z } from "zod";
import { dataResult, withNotes } from "../tools/results.ts";
import type { PagedRead } from "../tools/result_budget.ts";
import type { McpDeps } from "../tools/toolset.ts";
import { TABLE_CONTRACT, type TableSettings } from "./settings.ts";
import type { TableCtx } from "./store_common.ts";
import { workspaceSource } from "./schemas.ts";
import { MESSAGE_KINDS } from "./store_schema.ts";

/** What the table tools are registered with. */
export interface TableToolDeps {
  deps: McpDeps;
  settings: TableSettings;
  ctx: TableCtx;
}

/** A tool description: the contract line, a blank line, then what the tool is for. */
export function contractDescription(text: string): string {
  return `contract ${TABLE_CONTRACT}\n\n${text}`;
}

/** What a result adds to its raw values, so that both of its views say the same. */
export interface ResultExtras {
  /**
   * The nonce the text's untrusted wrappers used, and where the structured content holds text
   * other sessions wrote: the content then starts with the `untrusted` notice.
   */
  untrusted?: { nonce: string; fields: readonly string[] };
  /** Guidance the text gives beside the data, as `notes` (none: no field). */
  notes?: readonly string[];
}

/** A text result with the raw values as structured content. */
export function result(text: string, structured: object, extras: ResultExtras = {}) {
  return dataResult(text, withNotes(structured, extras.notes), extras.untrusted);
}

/** How a list reads on: the row's key, the argument taking it, and the field giving it. */
export interface ReadOn<Row> {
  keyOf(row: Row): string;
  /** The argument (`after_id`). */
  arg: string;
  /** The result field holding the value that reads on (`next_after_id`). */
  field: string;
}

/** Lists of records read on by id. */
export const BY_ID: ReadOn<{ id: string }> = {
  keyOf: (row) => row.id,
  arg: "after_id",
  field: "next_after_id",
};

/**
 * A list result whose rows the result budget may cut (`tools/result_budget.ts`): page `k` shows
 * the first `k` rows of `key`, and whenever rows are left out (by `limit` or by the budget) it
 * gives the value that reads on (`next_after_id` by default) in its data, notes and text.
 */
export function listRead<R extends { has_more: boolean }, Row>(
  r: R,
  key: keyof R & string,
  tool: string,
  build: (shown: R, more: string[]) => { content: { type: "text"; text: string }[] },
  readOn: ReadOn<Row>,
): PagedRead {
  const rows = r[key] as unknown as Row[];
  return {
    count: rows.length,
    page: (k) => {
      const cut = k < rows.length;
      const shown: R = { ...r, [key]: rows.slice(0, k), has_more: r.has_more || cut };
      const last = k > 0 ? readOn.keyOf(rows[k - 1]) : undefined;
      if (!shown.has_more || last === undefined) return build(shown, []);
      const more = `${
        cut ? "Cut to fit RESULT_MAX_TOKENS. " : ""
      }To read on, call ${tool} again with ${readOn.arg} "${last}" and the same filters.`;
      const result = build({ ...shown, [readOn.field]: last }, [more]);
      const [first, ...others] = result.content;
      return { ...result, content: [{ ...first, text: `${first.text}\n\n${more}` }, ...others] };
    },
  };
}

/** The note a cut list gives: how to see the rest (none when nothing was cut). */
export function moreNotes(r: { has_more: boolean }, how: string): string[] {
  return r.has_more ? [`More exist: ${how}.`] : [];
}

/** Where each table record holds text its author wrote, by the record's path in a result. */
export const UNTRUSTED_PATHS = {
  discussion: ["title"],
  message: ["body"],
  decision: ["title", "detail", "reason"],
  plan: ["title", "body"],
  task: ["title", "detail"],
  handoff: ["task_title", "context"],
} as const;

/** The paths of `kind`'s texts under `at` (`messages[]` → `messages[].body`). */
export function textsAt(at: string, kind: keyof typeof UNTRUSTED_PATHS): string[] {
  return UNTRUSTED_PATHS[kind].map((field) => `${at}.${field}`);
}

/** A fresh nonce for the untrusted-data wrappers of one result (`kit/untrusted.ts`). */
export { newNonce as nonce } from "../kit/untrusted.ts";

/** The argument fields the tools share, with their descriptions. */
export function fields(settings: TableSettings) {
  const l = settings.limits;
  return {
    workspace: z.string().optional().describe(
      `owner/repo; default ${settings.defaultWorkspace}`,
    ),
    limit: z.number().int().optional().describe(
      `1–${l.pageMax} (default ${l.pageDefault})`,
    ),
    afterId: z.string().optional().describe("Read on"),
    title: z.string().describe("One line"),
    kind: z.enum(MESSAGE_KINDS).optional().describe(
      "Default note",
    ),
    messageBody: z.string().describe(
      "Markdown; never edited",
    ),
    taskDetail: z.string().describe(
      "A leading PARKED parks the task",
    ),
    id: (what: string) => z.string().describe(`The ${what}'s id`),
    name: (what: string) =>
      z.string().describe(
        `${what} (a name, e.g. codex)`,
      ),
  };
}

/** What every result of a call that names a workspace reports about it. */
export const WORKSPACE_FIELDS = { workspace: z.string(), workspace_source: workspaceSource };

/** The keys every cut list of a workspace reports beside its rows. */
export const LIST_FIELDS = {
  workspace: z.string(),
  has_more: z.boolean(),
  total: z.number().int(),
  workspace_source: workspaceSource,
  next_after_id: z.string().optional().describe(
    "When has_more: pass as after_id (with the same filters) to read on",
  ),
};

/** The approval code field of the tools a person's verdict passes through. */
export const APPROVAL_CODE = z.string().describe(
  "Only a code a person gave you; never guess",
);
