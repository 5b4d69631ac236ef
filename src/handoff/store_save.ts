/**
 * `handoff_save`: a conversation validated whole, staged in chunks and swapped in under its
 * record, evicting the oldest handoff when the store is full.
 */

import { atomic, commitWithRetry } from "../kit/commit.ts";
import type { HandoffLimits } from "./settings.ts";
import {
  type ChunkRef,
  deleteWith,
  type Staged,
  stageWrites,
  sweepPendingDeletes,
} from "../kit/chunks.ts";
import { invalid } from "../kit/errors.ts";
import { ulid, ulidAt } from "../kit/ids.ts";
import { readKey } from "../kit/reads.ts";
import { nowIso } from "../kit/time.ts";
import { countMessages } from "./store_messages.ts";
import { refuseEarlyWhenFull } from "./store_evict.ts";
import { countInto } from "./store_counts.ts";
import {
  type Evicted,
  type Handoff,
  handoffKey,
  type HandoffStatus,
  type ImportedFrom,
  type Progress,
} from "./store_schema.ts";
import { checkText, optionalLine, optionalName } from "../kit/text.ts";
import {
  checkStatus,
  generateKey,
  normalizeTags,
  titleFromSummary,
  validateKey,
} from "./store_validate.ts";
import { chunkEntries, collectAfter, putRecord, replaceInto, reportLanded } from "./store_write.ts";

const encoder = new TextEncoder();

/** What `saveHandoff` takes; optional fields may be omitted. */
export interface SaveInput {
  key?: string;
  title?: string;
  summary: string;
  conversation: string;
  fromAi?: string;
  fromProject?: string;
  status?: string;
  nextAction?: string;
  tags?: string[];
  /** Set by the chat importer: the handoff is imported history (see `Handoff.imported`). */
  imported?: ImportedInput;
}

/** What an imported conversation adds to a save. */
export interface ImportedInput extends ImportedFrom {
  /** When the conversation began (ISO), kept as the record's `createdAt`. */
  createdAt: string | null;
  /**
   * When it last changed (ISO): the record's `updatedAt`, and the time of its `order`, so the
   * list shows imported history where it happened, not all of it as just saved.
   */
  updatedAt: string | null;
}

/** What a save did. */
export interface SaveResult {
  handoff: Handoff;
  overwritten: boolean;
  generatedKey: boolean;
  evicted: Evicted | null;
}

interface Checked {
  key: string | null;
  title: string | null;
  summary: string;
  conversation: string;
  fromAi: string | null;
  fromProject: string | null;
  status: HandoffStatus;
  nextAction: string | null;
  tags: string[];
  imported: ImportedInput | null;
}

/** Validates a whole save before anything is written. */
function checkSave(input: SaveInput, limits: HandoffLimits, what: string): Checked {
  if (typeof input !== "object" || input === null) invalid(`${what}: expected an object`);
  const key = input.key === undefined || input.key === null || input.key === ""
    ? null
    : validateKey(input.key, limits, what);
  const summary = checkText(input.summary, limits.summaryMaxBytes, {
    name: "summary",
    setting: "HANDOFF_SUMMARY_MAX_BYTES",
    what,
  }).trim();
  if (summary === "") invalid(`${what}: summary must not be empty: say what the conversation is`);
  const conversation = checkText(input.conversation, limits.conversationMaxBytes, {
    name: "conversation",
    setting: "HANDOFF_CONVERSATION_MAX_BYTES",
    what,
  });
  if (conversation.trim() === "") {
    invalid(
      `${what}: conversation must not be empty: send the whole conversation verbatim as ## User / ## Assistant sections`,
    );
  }
  return {
    key,
    title: optionalLine(input.title, limits.titleMaxChars, { name: "title", what }),
    summary,
    conversation,
    fromAi: optionalName(input.fromAi, limits.nameMaxChars, { name: "from_ai", what }),
    fromProject: optionalLine(input.fromProject, limits.projectMaxChars, {
      name: "from_project",
      what,
    }),
    status: checkStatus(input.status, what),
    nextAction: optionalLine(input.nextAction, limits.nextActionMaxChars, {
      name: "next_action",
      what,
    }),
    tags: normalizeTags(input.tags, limits, what),
    imported: input.imported ?? null,
  };
}

/**
 * Saves a handoff, overwriting one with the same key. Everything is validated before anything is
 * written; a full store evicts its oldest handoff (named in the result) or refuses the save.
 */
export async function saveHandoff(
  kv: Deno.Kv,
  limits: HandoffLimits,
  input: SaveInput,
  progress?: Progress,
): Promise<SaveResult> {
  const what = "Cannot save handoff";
  const checked = checkSave(input, limits, what);
  const bytes = encoder.encode(checked.conversation);
  if (!limits.evictWhenFull && !checked.imported) {
    await refuseEarlyWhenFull(kv, limits, checked.key, what);
  }
  const target = saveTarget(kv, checked.key ?? generateKey(), bytes, progress);
  await progress?.(0, 1, `saving ${bytes.byteLength} bytes`);
  await target.stage();
  if (target.staged!.inlineBytes === 0) await sweepPendingDeletes(kv);
  try {
    const { result, collect } = await commitSave(kv, limits, checked, target, bytes, what);
    await collectAfter(collect);
    await reportLanded(progress, target.steps, "saved");
    return result;
  } catch (error) {
    // Staged chunks a failed abandon leaves behind are swept after their TTL.
    await target.staged?.abandon().catch(() => {});
    throw error;
  }
}

/** Where a save's chunks are staged; staged again under a new key when a generated key collides. */
interface SaveTarget {
  key: string;
  refs: ChunkRef[];
  staged: Staged | null;
  /** Progress steps of the save: one per chunk batch, plus the commit. */
  steps: number;
  /** Stages the conversation's chunks under `key`. */
  stage(): Promise<void>;
}

function saveTarget(
  kv: Deno.Kv,
  key: string,
  bytes: Uint8Array,
  progress: Progress | undefined,
): SaveTarget {
  const target: SaveTarget = {
    key,
    refs: [],
    staged: null,
    steps: 1,
    async stage() {
      const chunked = chunkEntries(target.key, bytes);
      target.refs = chunked.refs;
      target.staged = await stageWrites(kv, chunked.entries, {
        onBatch: (done, total) => {
          target.steps = total + 1;
          return progress?.(done, total + 1, `stored chunk batch ${done} of ${total}`);
        },
      });
    },
  };
  return target;
}

/**
 * Commits the record, its time index and the staged chunks in one atomic, replacing the old
 * record's chunks or making room for a new one. A generated key that collides with an existing
 * handoff is replaced by a fresh one, never overwritten.
 */
async function commitSave(
  kv: Deno.Kv,
  limits: HandoffLimits,
  checked: Checked,
  target: SaveTarget,
  bytes: Uint8Array,
  what: string,
): Promise<{ result: SaveResult; collect: () => Promise<void> }> {
  const title = checked.title ?? titleFromSummary(checked.summary, limits);
  const messageCount = countMessages(checked.conversation);
  return await commitWithRetry(async () => {
    let current = await readKey<Handoff>(kv, handoffKey(target.key));
    while (checked.key === null && current.value !== null) {
      await target.staged!.abandon();
      target.key = generateKey();
      await target.stage();
      current = await readKey<Handoff>(kv, handoffKey(target.key));
    }
    const key = target.key;
    const existing = current.value;
    const now = nowIso();
    const then = importedTime(checked.imported);
    const order = then === null ? ulid() : ulidAt(Date.parse(then));
    const op = atomic(kv).check(current);
    const garbage: Deno.KvKey[] = [];
    if (existing) replaceInto(op, garbage, existing);
    const imported = checked.imported !== null;
    const evicted = await countInto(kv, limits, op, garbage, existing, imported, key, what);
    const handoff: Handoff = {
      key,
      title,
      summary: checked.summary,
      fromAi: checked.fromAi,
      fromProject: checked.fromProject,
      status: checked.status,
      nextAction: checked.nextAction,
      tags: checked.tags,
      createdAt: checked.imported?.createdAt ?? existing?.createdAt ?? now,
      updatedAt: then ?? now,
      order,
      bytes: bytes.byteLength,
      messageCount,
      chunks: target.refs,
      commentIds: existing?.commentIds ?? [],
      mergedFrom: null,
      ...(checked.imported
        ? { imported: { source: checked.imported.source, digest: checked.imported.digest } }
        : {}),
    };
    putRecord(op, handoff, checked.conversation);
    target.staged!.adopt(op);
    const result: SaveResult = {
      handoff,
      overwritten: existing !== null,
      generatedKey: checked.key === null,
      evicted,
    };
    return { op, value: { result, collect: deleteWith(kv, op, garbage) } };
    // A named key takes turns with other writes to it; a generated one is new to everyone.
  });
}

/** The time an imported conversation last changed, when it is a real time not in the future. */
function importedTime(imported: ImportedInput | null): string | null {
  const when = imported?.updatedAt ?? imported?.createdAt ?? null;
  if (when === null) return null;
  const ms = Date.parse(when);
  return Number.isFinite(ms) && ms <= Date.now() ? new Date(ms).toISOString() : null;
}
