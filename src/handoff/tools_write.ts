/** The handoff tools that write: save, append, merge, comments and clear. */

import { z } from "zod";
import { toolArgs } from "../tools/schema.ts";
import {
  mergedJson,
  mergedNotes,
  renderAppended,
  renderMerged,
  renderSaved,
  savedJson,
  savedNotes,
} from "./render.ts";
import { appendHandoff } from "./store_append.ts";
import { addComment, deleteComment } from "./store_comments.ts";
import { clearHandoffs, deleteHandoff } from "./store_delete.ts";
import { mergeHandoffs } from "./store_merge.ts";
import { saveHandoff } from "./store_save.ts";
import { utf8Bytes } from "../kit/text.ts";
import { invalid } from "../kit/errors.ts";
import { writes } from "../tools/annotations.ts";
import { CLEAR_ALL_CONFIRMATION, type HandoffToolContext, progressOf } from "./context.ts";
import { evictedSchema, keyArg, mergeShape, saveShape } from "./schemas.ts";
import { mergedFacts, mergeInputOf, savedFacts, saveInputOf } from "./inputs.ts";
import type { ToolRegistrar } from "../tools/registry.ts";
import {
  dataResult,
  MAYBE_UNTRUSTED_FIELDS,
  NOTES_FIELD,
  structuredResult,
  textResult,
  withNotes,
} from "../tools/results.ts";
import type { Evicted } from "./store_schema.ts";

/**
 * The untrusted notice of a write that evicted a handoff: its title, which another session may
 * have written, is in the result (the text names only the key and date, so no wrapper, no nonce).
 */
function evictedTexts(evicted: Evicted | null, nonce: () => string) {
  return evicted ? { nonce: nonce(), fields: ["evicted.title"] } : undefined;
}

/** `handoff_save`: saves a whole conversation, overwriting or evicting as needed. */
export function registerSaveTool(server: ToolRegistrar, ctx: HandoffToolContext): void {
  const { kv, limits, audit, nonce } = ctx;
  server.registerTool("handoff_save", {
    title: "Save conversation for another AI",
    description:
      "Saves the WHOLE conversation for another AI client to continue (handoff_load). Put every message VERBATIM in conversation: never summarise or shorten it. Too large? Save part, then handoff_append. A full store drops its oldest handoff.",
    inputSchema: toolArgs(saveShape(limits)),
    outputSchema: {
      ...MAYBE_UNTRUSTED_FIELDS,
      key: z.string(),
      title: z.string(),
      overwritten: z.boolean().describe("True when an existing handoff with this key was replaced"),
      generated_key: z.boolean(),
      bytes: z.number().int(),
      message_count: z.number().int(),
      evicted: evictedSchema,
      ...NOTES_FIELD,
    },
    annotations: writes({ destructive: true, idempotent: false }),
  }, async (args, call) => {
    const result = await audit(
      {
        tool: "handoff_save",
        via: "mcp",
        key: args.key ?? null,
        bytes_in: utf8Bytes(args.conversation),
      },
      () => saveHandoff(kv, limits, saveInputOf(args), progressOf(call)),
      savedFacts,
    );
    return dataResult(
      renderSaved(result),
      withNotes(savedJson(result), savedNotes(result)),
      evictedTexts(result.evicted, nonce),
    );
  });
}

/** `handoff_append`: adds the next part of a saved conversation. */
export function registerAppendTool(server: ToolRegistrar, ctx: HandoffToolContext): void {
  const { kv, limits, audit } = ctx;
  server.registerTool("handoff_append", {
    title: "Append to a handoff",
    description:
      "Adds the next part of a conversation too large for one handoff_save, in order and verbatim. An append past the size limit changes nothing.",
    inputSchema: toolArgs({
      key: keyArg,
      chunk: z.string().describe(
        "The next part, added as is (line breaks included)",
      ),
    }),
    outputSchema: {
      key: z.string(),
      appended_bytes: z.number().int(),
      bytes: z.number().int(),
      message_count: z.number().int(),
    },
    annotations: writes({ destructive: false, idempotent: false }),
  }, async ({ key, chunk }, call) => {
    const result = await audit(
      { tool: "handoff_append", via: "mcp", key, bytes_in: utf8Bytes(chunk) },
      () => appendHandoff(kv, limits, key, chunk, progressOf(call)),
      (r) => ({ bytes: r.handoff.bytes }),
    );
    return structuredResult(renderAppended(result), {
      key,
      appended_bytes: result.appendedBytes,
      bytes: result.handoff.bytes,
      message_count: result.handoff.messageCount,
    });
  });
}

/** `handoff_merge`: one handoff from several, all or nothing. */
export function registerMergeTool(server: ToolRegistrar, ctx: HandoffToolContext): void {
  const { kv, limits, audit, nonce } = ctx;
  server.registerTool("handoff_merge", {
    title: "Merge handoffs",
    description:
      "Merges handoffs of one topic split across chats, each part after a source marker. All or nothing.",
    inputSchema: toolArgs(mergeShape(limits)),
    outputSchema: {
      ...MAYBE_UNTRUSTED_FIELDS,
      key: z.string(),
      merged_from: z.array(z.string()),
      deleted_sources: z.array(z.string()),
      bytes: z.number().int(),
      message_count: z.number().int(),
      carried_comments: z.number().int(),
      evicted: evictedSchema,
      ...NOTES_FIELD,
    },
    annotations: writes({ destructive: true, idempotent: false }),
  }, async (args, call) => {
    const result = await audit(
      { tool: "handoff_merge", via: "mcp", key: args.new_key ?? null, keys: args.keys },
      () => mergeHandoffs(kv, limits, mergeInputOf(args), progressOf(call)),
      mergedFacts,
    );
    return dataResult(
      renderMerged(result),
      withNotes(mergedJson(result), mergedNotes(result)),
      evictedTexts(result.evicted, nonce),
    );
  });
}

/** `handoff_add_comment` and `handoff_delete_comment`: notes between sessions. */
export function registerCommentTools(server: ToolRegistrar, ctx: HandoffToolContext): void {
  const { kv, limits, audit } = ctx;
  server.registerTool("handoff_add_comment", {
    title: "Comment on a handoff",
    description:
      "Adds a note to a handoff (what happened since, what the next session must know); handoff_load shows it.",
    inputSchema: toolArgs({
      key: keyArg,
      content: z.string().describe("The note"),
      author: z.string().optional().describe(
        'You, e.g. "Claude Code"',
      ),
    }),
    outputSchema: { key: z.string(), comment_id: z.string(), comment_count: z.number().int() },
    annotations: writes({ destructive: false, idempotent: false }),
  }, async ({ key, content, author }) => {
    const { comment, count } = await audit(
      { tool: "handoff_add_comment", via: "mcp", key, bytes_in: utf8Bytes(content) },
      () => addComment(kv, limits, key, content, author),
    );
    return structuredResult(
      `OK: comment ${comment.id} added to handoff "${key}" (${count} comments now).`,
      { key, comment_id: comment.id, comment_count: count },
    );
  });

  server.registerTool("handoff_delete_comment", {
    title: "Delete a handoff comment",
    description: "Deletes a handoff's comment by the id handoff_load shows in brackets.",
    inputSchema: toolArgs({
      key: keyArg,
      comment_id: z.string().max(64).describe("Its id"),
    }),
    annotations: writes({ destructive: true, idempotent: true }),
  }, async ({ key, comment_id }) => {
    const { count } = await audit(
      { tool: "handoff_delete_comment", via: "mcp", key },
      () => deleteComment(kv, limits, key, comment_id),
    );
    return textResult(`OK: comment ${comment_id} deleted from handoff "${key}" (${count} left).`);
  });
}

/** `handoff_clear`: deletes one handoff, or all with an explicit confirmation. */
export function registerClearTool(server: ToolRegistrar, ctx: HandoffToolContext): void {
  const { kv, limits, audit } = ctx;
  server.registerTool("handoff_clear", {
    title: "Delete handoffs",
    description:
      `Deletes one handoff (key) or all (no key, confirm "${CLEAR_ALL_CONFIRMATION}"). Only when the user asks: no undo.`,
    inputSchema: toolArgs({
      key: z.string().optional().describe("The handoff to delete"),
      confirm: z.string().optional().describe(
        `"${CLEAR_ALL_CONFIRMATION}" to delete all`,
      ),
    }),
    annotations: writes({ destructive: true, idempotent: true }),
  }, async ({ key, confirm }) => {
    if (key !== undefined && key !== "") {
      const gone = await audit(
        { tool: "handoff_clear", via: "mcp", key },
        () => deleteHandoff(kv, limits, key),
        (h) => ({ bytes: h.bytes }),
      );
      return textResult(
        `OK: deleted handoff "${gone.key}" (${gone.messageCount} messages, ${gone.bytes} bytes, ${gone.commentIds.length} comments).`,
      );
    }
    if (confirm !== CLEAR_ALL_CONFIRMATION) {
      invalid(
        `Cannot clear: pass key to delete one handoff, or omit key and pass confirm: "${CLEAR_ALL_CONFIRMATION}" to delete every handoff`,
      );
    }
    const n = await audit(
      { tool: "handoff_clear", via: "mcp", key: null },
      () => clearHandoffs(kv, limits),
      (count) => ({ count }),
    );
    return textResult(`OK: deleted all ${n} handoffs.`);
  });
}
