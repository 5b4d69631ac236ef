/** `handoff_merge`: one handoff from several, all or nothing, with the sources leased. */

import { atomic, commitWithRetry } from "../kit/commit.ts";
import type { HandoffLimits } from "./settings.ts";
import {
  deleteWith,
  INLINE_BYTES,
  type Staged,
  stageWrites,
  sweepPendingDeletes,
} from "../kit/chunks.ts";
import { makeRoom, removeInto } from "./store_evict.ts";
import { releaseLeases, takeLeases } from "./store_lease.ts";
import { notFound, readComments, readWhole } from "./store_read.ts";
import {
  type Evicted,
  type Handoff,
  type HandoffComment,
  handoffCommentKey,
  handoffCountKey,
  handoffImportCountKey,
  handoffKey,
  handoffLeaseKey,
  type Lease,
  type Progress,
} from "./store_schema.ts";
import { checkText, optionalLine } from "../kit/text.ts";
import { generateKey, truncateBytes, truncateChars, validateKey } from "./store_validate.ts";
import { chunkEntries, collectAfter, putRecord, replaceInto, reportLanded } from "./store_write.ts";
import { countMessages } from "./store_messages.ts";
import { AppError, invalid } from "../kit/errors.ts";
import { ulid } from "../kit/ids.ts";
import { readKey, readKeys } from "../kit/reads.ts";
import { nowIso } from "../kit/time.ts";

/** How `handoff_merge` orders its sources. */
export const MERGE_STRATEGIES = ["chronological", "sequential"] as const;
/** One merge strategy. */
export type MergeStrategy = typeof MERGE_STRATEGIES[number];

const encoder = new TextEncoder();
/** Strict UTF-8 that keeps a leading byte order mark: conversations load back byte for byte. */
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** What `mergeHandoffs` takes. */
export interface MergeInput {
  keys: string[];
  newKey?: string;
  newTitle?: string;
  newSummary?: string;
  deleteSources?: boolean;
  strategy?: string;
}

/** What a merge did. */
export interface MergeResult {
  handoff: Handoff;
  /** Sources deleted (all of them when `deleteSources`, except one reused as the new key). */
  deletedSources: string[];
  /** True when `newKey` was one of the sources and now holds the merge. */
  replacedSource: boolean;
  carriedComments: number;
  evicted: Evicted | null;
}

/** Thrown inside a merge when a source changed after it was read: the merge is rebuilt. */
class SourcesChanged extends Error {}

/** How many times a merge is rebuilt when its sources keep changing. */
const MERGE_REBUILDS = 5;

/** A merge request after its checks: what `mergeHandoffs` works from. */
interface MergePlan {
  keys: string[];
  newKey: string;
  /** `newKey` is one of the sources (allowed only with `deleteSources`). */
  replacing: boolean;
  deleteSources: boolean;
  strategy: MergeStrategy;
  newTitle: string | null;
  newSummary: string | null;
}

/** One source as read for a merge. */
interface Source {
  entry: Deno.KvEntry<Handoff>;
  text: string;
  comments: HandoffComment[];
}

/** The merged handoff before it is committed: its record fields and what must be staged. */
interface Draft {
  fields: Omit<Handoff, "key" | "status" | "createdAt" | "updatedAt" | "order">;
  carriedComments: number;
  /** Chunk and comment-copy entries to stage before the commit. */
  writes: [Deno.KvKey, unknown][];
}

/**
 * Merges several handoffs into one, all or nothing: a source marker before each part, tags
 * united, comments carried over. The sources are leased for the merge so eviction skips them;
 * when a source changes meanwhile, the merge is rebuilt from a fresh read.
 */
export async function mergeHandoffs(
  kv: Deno.Kv,
  limits: HandoffLimits,
  input: MergeInput,
  progress?: Progress,
): Promise<MergeResult> {
  const what = "Cannot merge handoffs";
  const plan = checkMerge(input, limits, what);
  const { keys } = plan;
  const mergeId = ulid();
  await sweepPendingDeletes(kv);
  await takeLeases(kv, keys, plan.newKey, plan.replacing, mergeId, what);
  let staged: Staged | null = null;
  try {
    for (let round = 0;; round++) {
      const sources = await readSources(kv, keys, progress, what);
      const draft = draftMerge(sources, plan, limits, what);
      staged = await stageWrites(kv, draft.writes, {
        inlineBytes: INLINE_BYTES / 2,
        onBatch: (done, total) =>
          progress?.(keys.length + done / (total + 1), keys.length + 2, "stored merged chunks"),
      });
      try {
        const { result, collect } = await commitMerge(kv, limits, plan, {
          sources,
          draft,
          staged,
          mergeId,
          what,
        });
        staged = null;
        await collectAfter(collect);
        await reportLanded(progress, keys.length + 2, "merged");
        return result;
      } catch (error) {
        if (!(error instanceof SourcesChanged)) throw error;
        if (round + 1 >= MERGE_REBUILDS) {
          throw new AppError(
            "busy",
            `${what}: the sources kept changing while being merged; nothing was merged, try again`,
          );
        }
        await staged?.abandon();
        staged = null;
      }
    }
  } catch (error) {
    // Cleanup failures must not hide why the merge failed: staged chunks left behind are swept
    // after their TTL, and a lease left behind expires by itself.
    await staged?.abandon().catch(() => {});
    await releaseLeases(kv, keys, mergeId).catch(() => {});
    throw error;
  }
}

/** Checks a merge request before anything is read or written. */
function checkMerge(input: MergeInput, limits: HandoffLimits, what: string): MergePlan {
  if (!Array.isArray(input.keys) || input.keys.length < 2) {
    invalid(`${what}: keys must list at least 2 handoff keys`);
  }
  if (input.keys.length > limits.mergeSourcesMax) {
    invalid(
      `${what}: ${input.keys.length} keys given; at most ${limits.mergeSourcesMax} (HANDOFF_MERGE_MAX_SOURCES) can be merged at once`,
    );
  }
  const keys = input.keys.map((k) => validateKey(k, limits, what));
  const repeated = keys.find((k, i) => keys.indexOf(k) !== i);
  if (repeated !== undefined) invalid(`${what}: key "${repeated}" is repeated; list each once`);
  const deleteSources = input.deleteSources === true;
  const strategy = input.strategy ?? "sequential";
  if (!(MERGE_STRATEGIES as readonly string[]).includes(strategy)) {
    invalid(`${what}: strategy must be one of ${MERGE_STRATEGIES.join(", ")}, got "${strategy}"`);
  }
  const newKey = input.newKey === undefined || input.newKey === ""
    ? generateKey()
    : validateKey(input.newKey, limits, what);
  const replacing = keys.includes(newKey);
  if (replacing && !deleteSources) {
    invalid(
      `${what}: new_key "${newKey}" is one of the sources, which are kept; pass delete_sources=true to replace it, or choose another new_key`,
    );
  }
  const newTitle = optionalLine(input.newTitle, limits.titleMaxChars, { name: "new_title", what });
  const newSummary = input.newSummary === undefined || input.newSummary.trim() === ""
    ? null
    : checkText(input.newSummary, limits.summaryMaxBytes, {
      name: "new_summary",
      setting: "HANDOFF_SUMMARY_MAX_BYTES",
      what,
    }).trim();
  return {
    keys,
    newKey,
    replacing,
    deleteSources,
    strategy: strategy as MergeStrategy,
    newTitle,
    newSummary,
  };
}

/** Reads every source whole (record, conversation, comments), in the order of `keys`. */
async function readSources(
  kv: Deno.Kv,
  keys: string[],
  progress: Progress | undefined,
  what: string,
): Promise<Source[]> {
  const sources: Source[] = [];
  for (const key of keys) {
    const whole = await readWhole(kv, key);
    if (whole === null) throw notFound(what, key);
    const comments = await readComments(kv, whole.entry.value);
    sources.push({ entry: whole.entry, text: decoder.decode(whole.bytes), comments });
    await progress?.(sources.length, keys.length + 2, `read source "${key}"`);
  }
  return sources;
}

/** Builds the merged handoff from its sources, refusing a result over any limit. */
function draftMerge(
  sources: Source[],
  plan: MergePlan,
  limits: HandoffLimits,
  what: string,
): Draft {
  const { newKey } = plan;
  const parts = plan.strategy === "chronological"
    ? [...sources].sort((a, b) =>
      a.entry.value.createdAt.localeCompare(b.entry.value.createdAt) ||
      a.entry.value.order.localeCompare(b.entry.value.order)
    )
    : sources;
  const conversation = parts.map((s, i) => sourceMarker(s.entry.value, i, parts.length) + s.text)
    .map((part, i, all) => i < all.length - 1 && !part.endsWith("\n") ? `${part}\n` : part)
    .join("\n");
  const bytes = encoder.encode(conversation);
  if (bytes.byteLength > limits.conversationMaxBytes) {
    throw new AppError(
      "too_large",
      `${what}: the merged conversation would be ${bytes.byteLength} bytes; at most ${limits.conversationMaxBytes} bytes (HANDOFF_CONVERSATION_MAX_BYTES) are allowed. Nothing was merged`,
    );
  }
  const records = parts.map((s) => s.entry.value);
  const tags = [...new Set(records.flatMap((h) => h.tags))];
  if (tags.length > limits.tagsMax) {
    invalid(
      `${what}: the sources have ${tags.length} distinct tags together; at most ${limits.tagsMax} are allowed on one handoff. Remove some first. Nothing was merged`,
    );
  }
  // A merged handoff holds its sources' comments under their ids: merging it with one of
  // those sources again must carry each comment once.
  const comments = [...new Map(parts.flatMap((s) => s.comments).map((c) => [c.id, c])).values()]
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  if (comments.length > limits.commentsMax) {
    throw new AppError(
      "full",
      `${what}: the sources have ${comments.length} comments together; at most ${limits.commentsMax} (HANDOFF_COMMENTS_MAX) fit on one handoff. Delete some first. Nothing was merged`,
    );
  }
  const chunked = chunkEntries(newKey, bytes);
  const kept = new Set(
    parts.find((s) => s.entry.value.key === newKey)?.entry.value.commentIds ?? [],
  );
  const copies = comments.filter((c) => !kept.has(c.id))
    .map((c): [Deno.KvKey, HandoffComment] => [handoffCommentKey(newKey, c.id), c]);
  const newest = [...records].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
  return {
    fields: {
      title: plan.newTitle ??
        truncateChars(`Merged: ${records.map((h) => h.title).join(" + ")}`, limits.titleMaxChars),
      summary: plan.newSummary ?? truncateBytes(
        records.map((h) => `From "${h.key}" (${h.title}): ${h.summary}`).join("\n\n"),
        limits.summaryMaxBytes,
      ),
      fromAi: joinedDistinct(records.map((h) => h.fromAi), limits.nameMaxChars),
      fromProject: joinedDistinct(records.map((h) => h.fromProject), limits.projectMaxChars),
      nextAction: newest.find((h) => h.nextAction !== null)?.nextAction ?? null,
      tags,
      bytes: bytes.byteLength,
      messageCount: countMessages(conversation),
      chunks: chunked.refs,
      commentIds: comments.map((c) => c.id),
      mergedFrom: records.map((h) => h.key),
    },
    carriedComments: comments.length,
    writes: [...chunked.entries, ...copies],
  };
}

/** What `commitMerge` commits: the sources as read, the draft and its staged writes. */
interface Commit {
  sources: Source[];
  draft: Draft;
  staged: Staged;
  mergeId: string;
  what: string;
}

/**
 * Commits the merge in one atomic: the sources unchanged since read and still leased to this
 * merge, the new record, the sources deleted (when asked) and room made. Throws
 * `SourcesChanged` when a source moved on, so the caller rebuilds.
 */
async function commitMerge(
  kv: Deno.Kv,
  limits: HandoffLimits,
  plan: MergePlan,
  commit: Commit,
): Promise<{ result: MergeResult; collect: () => Promise<void> }> {
  const { keys, newKey, replacing, deleteSources } = plan;
  const { sources, draft, staged, mergeId, what } = commit;
  return await commitWithRetry(async () => {
    const read = await readKeys<Handoff[]>(kv, keys.map(handoffKey));
    const leases = await readKeys<Lease[]>(kv, keys.map(handoffLeaseKey));
    const [target, count] = await readKeys<[Handoff, number]>(kv, [
      handoffKey(newKey),
      handoffCountKey(),
    ]);
    for (let i = 0; i < keys.length; i++) {
      if (read[i].value === null) throw notFound(what, keys[i]);
      if (leases[i].value?.id !== mergeId) {
        throw new AppError(
          "busy",
          `${what}: the merge took too long and lost its hold on "${
            keys[i]
          }"; nothing was merged, try again`,
        );
      }
      const before = sources.find((s) => s.entry.key[1] === keys[i])!;
      if (read[i].versionstamp !== before.entry.versionstamp) throw new SourcesChanged();
    }
    if (!replacing && target.value !== null) {
      invalid(`${what}: new_key "${newKey}" already exists; choose another or delete it first`);
    }
    const op = atomic(kv).check(...read, ...leases, target);
    const garbage: Deno.KvKey[] = [];
    const deleted: string[] = [];
    for (let i = 0; i < keys.length; i++) {
      const h = read[i].value!;
      if (!deleteSources || h.key === newKey) op.delete(handoffLeaseKey(h.key));
      if (!deleteSources) continue;
      if (h.key === newKey) {
        replaceInto(op, garbage, h);
      } else {
        removeInto(op, garbage, h);
        deleted.push(h.key);
      }
    }
    // Imported sources leave their own count (HANDOFF_IMPORTED_MAX_COUNT); a merge is a saved one.
    const isImported = (key: string) =>
      Boolean(read.find((r) => r.value!.key === key)!.value!.imported);
    const deletedImported = deleted.filter(isImported).length;
    const replacedImported = replacing && isImported(newKey);
    await leaveImportCount(kv, op, deletedImported + (replacedImported ? 1 : 0));
    const delta = (replacing && !replacedImported ? 0 : 1) - (deleted.length - deletedImported);
    const evicted = await makeRoom(
      kv,
      limits,
      op,
      garbage,
      count,
      delta,
      new Set([...keys, newKey]),
      what,
    );
    const now = nowIso();
    const order = ulid();
    const handoff: Handoff = {
      key: newKey,
      status: "active",
      createdAt: now,
      updatedAt: now,
      order,
      ...draft.fields,
    };
    putRecord(op, handoff);
    staged.adopt(op);
    const collect = deleteWith(kv, op, garbage);
    const result: MergeResult = {
      handoff,
      deletedSources: deleted,
      replacedSource: replacing,
      carriedComments: draft.carriedComments,
      evicted,
    };
    return { op, value: { result, collect } };
  });
}

/** Takes `gone` imported handoffs off their count inside `op`. */
async function leaveImportCount(
  kv: Deno.Kv,
  op: Deno.AtomicOperation,
  gone: number,
): Promise<void> {
  if (gone === 0) return;
  const count = await readKey<number>(kv, handoffImportCountKey());
  op.check(count).set(handoffImportCountKey(), Math.max(0, (count.value ?? gone) - gone));
}

/** The line put before each part of a merged conversation. */
function sourceMarker(h: Handoff, index: number, total: number): string {
  const from = h.fromAi ? `, from ${h.fromAi}` : "";
  return `=== handoff_merge: part ${
    index + 1
  } of ${total}: handoff "${h.key}" (${h.title}${from}, created ${h.createdAt}) ===\n\n`;
}

function joinedDistinct(values: (string | null)[], max: number): string | null {
  const distinct = [...new Set(values.filter((v): v is string => v !== null))];
  return distinct.length === 0 ? null : truncateChars(distinct.join(", "), max);
}
