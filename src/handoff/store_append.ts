/** `handoff_append`: adds to a saved conversation, all or nothing under the size limit. */

import { atomic, commitWithRetry } from "../kit/commit.ts";
import type { HandoffLimits } from "./settings.ts";
import {
  CHUNK_BYTES,
  type ChunkRef,
  concatBytes,
  deleteWith,
  INLINE_BYTES,
  type Staged,
  stageWrites,
  sweepPendingDeletes,
} from "../kit/chunks.ts";
import { AppError, invalid } from "../kit/errors.ts";
import { ulid } from "../kit/ids.ts";
import { readKey } from "../kit/reads.ts";
import { nowIso } from "../kit/time.ts";
import { countMessages } from "./store_messages.ts";
import { notFound, readWhole } from "./store_read.ts";
import { type Handoff, handoffChunkKey, handoffKey, type Progress } from "./store_schema.ts";
import { validateKey } from "./store_validate.ts";
import { checkText } from "../kit/text.ts";
import { chunkEntries, collectAfter, dropOrder, putRecord, reportLanded } from "./store_write.ts";

/** Appends larger than this are staged before their atomic; smaller ones are written inline. */
export const INLINE_APPEND_BYTES = INLINE_BYTES - CHUNK_BYTES;

const encoder = new TextEncoder();

/** Strict UTF-8 that keeps a leading byte order mark: conversations load back byte for byte. */
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** What `appendHandoff` did. */
export interface AppendResult {
  handoff: Handoff;
  appendedBytes: number;
}

/**
 * Appends `chunk` to a saved conversation. An append that would pass the size limit changes
 * nothing. Concurrent appends all land, in the order their atomics commit.
 */
export async function appendHandoff(
  kv: Deno.Kv,
  limits: HandoffLimits,
  key: string,
  chunk: string,
  progress?: Progress,
): Promise<AppendResult> {
  const what = "Cannot append to handoff";
  validateKey(key, limits, what);
  checkText(chunk, limits.conversationMaxBytes, {
    name: "chunk",
    setting: "HANDOFF_CONVERSATION_MAX_BYTES",
    what,
  });
  if (chunk.length === 0) invalid(`${what}: chunk must not be empty`);
  const add = encoder.encode(chunk);
  const big = add.byteLength > INLINE_APPEND_BYTES;
  const progressSteps = { steps: 1 };
  await progress?.(0, 1, `appending ${add.byteLength} bytes`);
  const { staged, refs: stagedRefs } = big
    ? await stageBigAppend(kv, limits, key, add, { progress, progressSteps, what })
    : { staged: null, refs: [] };
  try {
    const { result, collect } = await commitWithRetry(async () => {
      const whole = await readWhole(kv, key);
      if (whole === null) throw notFound(what, key);
      const existing = whole.entry.value;
      const total = existing.bytes + add.byteLength;
      if (total > limits.conversationMaxBytes) {
        throw tooLargeAppend(what, key, existing.bytes, add.byteLength, limits);
      }
      const text = decoder.decode(whole.bytes) + chunk;
      const op = atomic(kv).check(whole.entry);
      dropOrder(op, existing.order);
      const garbage: Deno.KvKey[] = [];
      let chunks: ChunkRef[];
      if (staged) {
        chunks = [...existing.chunks, ...stagedRefs];
        staged.adopt(op);
      } else {
        // Small append: rewrite a partly filled last chunk together with the new bytes, so
        // many small appends do not leave many small chunks.
        const last = existing.chunks.at(-1);
        let tail: Uint8Array = add;
        let kept = existing.chunks;
        if (last && last.bytes < CHUNK_BYTES) {
          tail = concatBytes([whole.bytes.subarray(whole.bytes.byteLength - last.bytes), add]);
          kept = existing.chunks.slice(0, -1);
          garbage.push(handoffChunkKey(key, last.id));
        }
        const fresh = chunkEntries(key, tail);
        for (const [k, v] of fresh.entries) op.set(k, v);
        chunks = [...kept, ...fresh.refs];
      }
      const order = ulid();
      const handoff: Handoff = {
        ...existing,
        updatedAt: nowIso(),
        order,
        bytes: total,
        messageCount: countMessages(text),
        chunks,
      };
      putRecord(op, handoff);
      const collect = deleteWith(kv, op, garbage);
      return { op, value: { result: { handoff, appendedBytes: add.byteLength }, collect } };
    });
    await collectAfter(collect);
    await reportLanded(progress, progressSteps.steps, "appended");
    return result;
  } catch (error) {
    // Staged chunks a failed abandon leaves behind are swept after their TTL.
    await staged?.abandon().catch(() => {});
    throw error;
  }
}

/**
 * Stages a large append's chunks before its commit (refusing early when it cannot fit), so the
 * commit itself stays small.
 */
async function stageBigAppend(
  kv: Deno.Kv,
  limits: HandoffLimits,
  key: string,
  add: Uint8Array,
  run: { progress?: Progress; progressSteps: { steps: number }; what: string },
): Promise<{ staged: Staged | null; refs: ChunkRef[] }> {
  const first = await readKey<Handoff>(kv, handoffKey(key));
  if (first.value === null) throw notFound(run.what, key);
  if (first.value.bytes + add.byteLength > limits.conversationMaxBytes) {
    throw tooLargeAppend(run.what, key, first.value.bytes, add.byteLength, limits);
  }
  const chunked = chunkEntries(key, add);
  await sweepPendingDeletes(kv);
  const staged = await stageWrites(kv, chunked.entries, {
    inlineBytes: 0,
    onBatch: (done, total) => {
      run.progressSteps.steps = total + 1;
      return run.progress?.(done, total + 1, `stored chunk batch ${done} of ${total}`);
    },
  });
  return { staged, refs: chunked.refs };
}

function tooLargeAppend(
  what: string,
  key: string,
  have: number,
  add: number,
  limits: HandoffLimits,
): AppError {
  return new AppError(
    "too_large",
    `${what}: "${key}" holds ${have} bytes and the chunk is ${add} bytes; together ${
      have + add
    } bytes, but at most ${limits.conversationMaxBytes} bytes (HANDOFF_CONVERSATION_MAX_BYTES) are allowed. Nothing was appended`,
  );
}
