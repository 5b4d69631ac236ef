/**
 * What `handoff_save` and `handoff_merge` make of their validated arguments, the same for the MCP
 * tools and the JSON HTTP API: the store's input, and what the audit log keeps of the result.
 */

import type { z } from "zod";
import type { AuditFacts } from "./audit.ts";
import type { mergeShape, saveShape } from "./schemas.ts";
import type { MergeInput, MergeResult } from "./store_merge.ts";
import type { SaveInput, SaveResult } from "./store_save.ts";

/** Arguments of a save, as `saveShape` validates them. */
export type SaveArgs = z.infer<z.ZodObject<ReturnType<typeof saveShape>>>;
/** Arguments of a merge, as `mergeShape` validates them. */
export type MergeArgs = z.infer<z.ZodObject<ReturnType<typeof mergeShape>>>;

/** The store's input for a save. */
export function saveInputOf(args: SaveArgs): SaveInput {
  return {
    key: args.key,
    title: args.title,
    summary: args.summary,
    conversation: args.conversation,
    fromAi: args.from_ai,
    fromProject: args.from_project,
    status: args.status,
    nextAction: args.next_action,
    tags: args.tags,
  };
}

/** The store's input for a merge. */
export function mergeInputOf(args: MergeArgs): MergeInput {
  return {
    keys: args.keys,
    newKey: args.new_key,
    newTitle: args.new_title,
    newSummary: args.new_summary,
    deleteSources: args.delete_sources,
    strategy: args.strategy,
  };
}

/** What the audit log keeps of a save's result. */
export function savedFacts(r: SaveResult): Partial<AuditFacts> {
  return { key: r.handoff.key, bytes: r.handoff.bytes, evicted: r.evicted?.key ?? null };
}

/** What the audit log keeps of a merge's result. */
export function mergedFacts(r: MergeResult): Partial<AuditFacts> {
  return {
    key: r.handoff.key,
    bytes: r.handoff.bytes,
    deleted: r.deletedSources,
    evicted: r.evicted?.key ?? null,
  };
}
