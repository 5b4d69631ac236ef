/** The thinking toolset: durable sequential thinking, its history, and deleting a sequence. */

import { newNonce } from "../kit/untrusted.ts";
import { z } from "zod";
import { nullableString } from "../tools/schema.ts";
import { flagArg, wholeNumberArg } from "./args.ts";
import type { ThinkingLimits } from "./settings.ts";
import {
  receiptNotes,
  renderDelete,
  renderHistory,
  renderThought,
  type SessionFlag,
} from "./render.ts";
import { deleteSequence } from "./store_delete.ts";
import { AppError } from "../kit/errors.ts";
import { getHistory } from "./store_history.ts";
import { historyRead } from "./history_page.ts";
import { pagedResult } from "../tools/result_budget.ts";
import { MAIN_BRANCH } from "./store_keys.ts";
import type { ThoughtInput } from "./store_validate.ts";
import { addThought, type AddThoughtResult, type ThoughtFlag } from "./store_write.ts";
import viewHtml from "./card.html" with { type: "text" };
import { READ_ONLY, writes } from "../tools/annotations.ts";
import { registerAppView, viewMeta } from "../tools/apps.ts";
import { THINKING_ICONS } from "./icon.ts";
import type { ToolRegistrar } from "../tools/registry.ts";
import {
  NOTES_FIELD,
  structuredResult,
  UNTRUSTED_FIELDS,
  untrustedResult,
  withNotes,
} from "../tools/results.ts";
import { sessionOf } from "../tools/session.ts";

/** What the thinking tools need. */
export interface ThinkingDeps {
  kv: Deno.Kv;
  limits: ThinkingLimits;
}

/** The MCP Apps view that shows thoughts as cards and a finished sequence as a tree. */
export const THINKING_VIEW_URI = "ui://handoff-mcp/thinking.html";

/** What the model is told about this toolset at initialize. */
export const THINKING_INSTRUCTIONS =
  "For step-by-step reasoning call sequentialthinking once per thought; send back the sequenceId it first returns.";

const DESCRIPTION =
  `Records one stored reasoning step; call it once per thought. totalThoughts is an estimate to adjust; thoughtNumber may pass it. Revise: isRevision, revisesThought. Branch: branchFromThought and a new branchId, kept for the branch (branchFromBranchId forks off one). Numbers count per branch. nextThoughtNeeded false only at the answer. Send back the sequenceId the first call returns.`;

/** What every thinking tool uses, built once per server. */
interface ThinkingToolContext {
  kv: Deno.Kv;
  limits: ThinkingLimits;
  /** A thought-number argument described as `what`. */
  count(what: string): z.ZodType<number>;
  /** The `sequenceId` argument. */
  sequenceId: z.ZodString;
  /** A branch-id argument described as `what`. */
  branchName(what: string): z.ZodString;
  /** The `_meta` that links a tool to the thinking view. */
  ui: ReturnType<typeof viewMeta>;
}

/** Registers the thinking tools and their MCP Apps view. */
export function registerThinkingTools(server: ToolRegistrar, deps: ThinkingDeps): void {
  const { kv, limits } = deps;
  const ctx: ThinkingToolContext = {
    kv,
    limits,
    count: (what) => wholeNumberArg(1, limits.numberMax, what),
    sequenceId: z.string().max(SEQUENCE_ID_MAX),
    branchName: (what) =>
      z.string().max(limits.branchIdMax).describe(
        what,
      ),
    ui: viewMeta(THINKING_VIEW_URI),
  };
  registerSequentialThinkingTool(server, ctx);
  registerHistoryTool(server, ctx);
  registerDeleteTool(server, ctx);
  registerAppView(server, {
    name: "thinking-view",
    uri: THINKING_VIEW_URI,
    title: "Thinking view",
    description:
      "Shows the current thought as a card and, once a sequence ends, the whole process with its branches and revisions",
    html: viewHtml,
    icons: THINKING_ICONS,
  });
}

/** `sequentialthinking`: one thought, stored; a session remembers the sequence it last wrote. */
function registerSequentialThinkingTool(server: ToolRegistrar, ctx: ThinkingToolContext): void {
  const { kv, limits, count, branchName } = ctx;
  server.registerTool("sequentialthinking", {
    title: "Sequential Thinking",
    description: DESCRIPTION,
    // Open like the standard server's, so unknown names are ignored (and named) as elsewhere.
    inputSchema: z.looseObject({
      thought: z.string().describe(
        "This step",
      ),
      nextThoughtNeeded: flagArg("Another thought follows"),
      thoughtNumber: count("Its number on its branch"),
      totalThoughts: count("Estimated total"),
      isRevision: flagArg("Revises revisesThought").optional(),
      revisesThought: count("Thought revised").optional(),
      branchFromThought: count("Fork point").optional(),
      branchId: branchName(`Its branch (default ${MAIN_BRANCH})`).optional(),
      needsMoreThoughts: flagArg("More needed past the planned end").optional(),
      sequenceId: ctx.sequenceId.optional().describe("From the first call"),
      branchFromBranchId: branchName(`Fork point's branch (default ${MAIN_BRANCH})`).optional(),
    }),
    outputSchema: {
      sequenceId: z.string().describe("Pass it with every later thought of this sequence"),
      thoughtNumber: z.number(),
      totalThoughts: z.number().describe("Raised to thoughtNumber when it was lower"),
      nextThoughtNeeded: z.boolean(),
      branches: z.array(z.string()).describe("Branch ids of the sequence, in creation order"),
      thoughtHistoryLength: z.number().describe("Thoughts stored in the sequence, all branches"),
      branchId: z.string().describe(`The branch this thought is on ("${MAIN_BRANCH}": main line)`),
      historyIndex: z.number().describe("Position of this thought in the sequence's history"),
      isRevision: z.boolean(),
      revisesThought: z.number().optional(),
      revisesIndex: z.number().optional().describe("History position of the revised thought"),
      branchFromThought: z.number().optional(),
      branchFromIndex: z.number().optional().describe("History position of the fork point"),
      branchFromBranchId: z.string().optional(),
      flags: z.array(z.string()).describe(
        "Accepted conditions worth knowing: NEW_SEQUENCE, SESSION_SEQUENCE, REOPENED, NUMBER_REUSED, TOTAL_RAISED",
      ),
      ...NOTES_FIELD,
    },
    annotations: writes({ destructive: false, idempotent: false }),
    _meta: ctx.ui,
  }, async (args, call) => {
    const session = sessionOf(call).slot("thinking", newThinkingSession);
    const input: ThoughtInput = { ...args };
    const implied = input.sequenceId === undefined && !startsOver(input)
      ? session.sequenceId
      : undefined;
    const { result, continued } = implied === undefined
      ? { result: await addThought(kv, limits, input), continued: false }
      : await addToSessionSequence(kv, limits, input, implied);
    session.sequenceId = result.sequenceId;
    const flags: (ThoughtFlag | SessionFlag)[] = continued ? ["SESSION_SEQUENCE"] : [];
    flags.push(...result.flags);
    const { index, flags: _, ...rest } = result;
    return structuredResult(
      renderThought(result, flags),
      withNotes({ ...rest, historyIndex: index, flags }, receiptNotes(result, flags)),
    );
  });
}

/** `get_thought_history`: a stored sequence read back, one page at a time. */
function registerHistoryTool(server: ToolRegistrar, ctx: ThinkingToolContext): void {
  const { kv, limits, branchName } = ctx;
  const thoughtSchema = z.object({
    index: z.number().describe("Position in the history, from 1"),
    thoughtNumber: z.number(),
    totalThoughts: z.number(),
    nextThoughtNeeded: z.boolean(),
    branchId: z.string(),
    isRevision: z.boolean(),
    revisesThought: z.number().optional(),
    revisesIndex: z.number().optional(),
    branchFromThought: z.number().optional(),
    branchFromIndex: z.number().optional(),
    needsMoreThoughts: z.boolean().optional(),
    createdAt: z.string(),
    characters: z.number().describe("Length of the whole thought"),
    thought: z.string(),
    truncated: z.boolean().describe(
      "True when the thought was cut at maxCharacters: nextCursor reads on from the cut",
    ),
    fromCharacter: z.number().optional().describe(
      "When this page starts inside the thought: the characters of it earlier pages showed",
    ),
    continues: z.boolean().optional().describe(
      "True when the thought was cut to fit the result budget: nextCursor reads on from the cut",
    ),
  });
  const branchSchema = z.object({
    branchId: z.string(),
    parentBranchId: z.string(),
    branchFromThought: z.number(),
    branchFromIndex: z.number(),
    firstIndex: z.number(),
    thoughts: z.number(),
    createdAt: z.string(),
  });

  server.registerTool("get_thought_history", {
    title: "Get thought history",
    description:
      "Reads a thinking sequence back (branches, thoughts in order) to resume or review it.",
    // Open like the standard server's, so unknown names are ignored (and named) as elsewhere.
    inputSchema: z.looseObject({
      sequenceId: ctx.sequenceId.describe("From sequentialthinking"),
      limit: wholeNumberArg(
        1,
        limits.historyPageMax,
        `Per page (default ${limits.historyPageDefault})`,
      ).optional(),
      cursor: z.string().max(1000).optional().describe("Read on"),
      order: z.enum(["asc", "desc"]).optional().describe(
        "asc (default) or desc",
      ),
      branchId: branchName("Only this branch").optional(),
      maxCharacters: wholeNumberArg(
        1,
        limits.historyCharactersMax,
        `Text per page (default ${limits.historyCharactersDefault})`,
      ).optional(),
    }),
    outputSchema: {
      ...UNTRUSTED_FIELDS,
      sequence: z.object({
        sequenceId: z.string(),
        title: z.string().describe("The start of the first thought"),
        createdAt: z.string(),
        updatedAt: z.string(),
        completed: z.boolean(),
        thoughtHistoryLength: z.number(),
        mainThoughts: z.number(),
        revisionCount: z.number(),
        lastThoughtNumber: z.number(),
        totalThoughts: z.number(),
        branches: z.array(branchSchema),
        expiresAt: nullableString(),
      }),
      thoughts: z.array(thoughtSchema),
      order: z.enum(["asc", "desc"]),
      branchId: nullableString(),
      nextCursor: nullableString("Cursor of the next page; null at the end"),
      ...NOTES_FIELD,
    },
    annotations: READ_ONLY,
    _meta: ctx.ui,
  }, async ({ sequenceId, ...options }) => {
    const whole = await getHistory(kv, limits, sequenceId, options);
    const nonce = newNonce();
    return pagedResult(historyRead(whole, (page) => {
      const more = page.nextCursor === null ? [] : [
        `More: call get_thought_history again with cursor "${page.nextCursor}" (same order and branchId).`,
      ];
      return untrustedResult(renderHistory(page), withNotes({ ...page }, more), {
        nonce,
        fields: ["sequence.title", "thoughts[].thought"],
      });
    }));
  });
}

/** `delete_thought_sequence`: a sequence and everything in it, only with `confirm: true`. */
function registerDeleteTool(server: ToolRegistrar, ctx: ThinkingToolContext): void {
  const { kv, limits } = ctx;
  server.registerTool("delete_thought_sequence", {
    title: "Delete thought sequence",
    description: "Deletes a thinking sequence for good, only when the user asks.",
    // Open like the standard server's, so unknown names are ignored (and named) as elsewhere.
    inputSchema: z.looseObject({
      sequenceId: ctx.sequenceId.describe("The sequence to delete"),
      confirm: z.literal(true).describe("true (no undo)"),
    }),
    outputSchema: {
      sequenceId: z.string(),
      deleted: z.boolean().describe("False when no such sequence existed"),
      deletedThoughts: z.number(),
    },
    annotations: writes({ destructive: true, idempotent: true }),
  }, async ({ sequenceId, confirm }) => {
    const result = await deleteSequence(kv, limits, sequenceId, confirm);
    return structuredResult(renderDelete(result), { ...result });
  });
}

/** Longest `sequenceId` argument taken (ids are 26 characters; longer ones name nothing). */
const SEQUENCE_ID_MAX = 64;

/** What one MCP session remembers between its thoughts. */
interface ThinkingSession {
  /** The sequence this session last wrote, for clients that never send sequenceId. */
  sequenceId?: string;
}

function newThinkingSession(): ThinkingSession {
  return {};
}

/**
 * Adds a thought that named no sequence to the one this session wrote last. When that sequence
 * is gone (deleted or expired) the thought starts a new one, as it would have in a new session:
 * the caller sent no id, so "unknown sequence" is not an error it could act on.
 */
async function addToSessionSequence(
  kv: Deno.Kv,
  limits: ThinkingLimits,
  input: ThoughtInput,
  sequenceId: string,
): Promise<{ result: AddThoughtResult; continued: boolean }> {
  try {
    const result = await addThought(kv, limits, { ...input, sequenceId });
    return { result, continued: true };
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== "SEQUENCE_NOT_FOUND") throw error;
    return { result: await addThought(kv, limits, input), continued: false };
  }
}

/** A first thought with no sequenceId starts a new sequence even within a session. */
function startsOver(input: ThoughtInput): boolean {
  return input.thoughtNumber === 1 && input.isRevision !== true &&
    input.branchFromThought === undefined && input.branchId === undefined;
}
