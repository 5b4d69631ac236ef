/** What the thinking store's unit tests share: a fresh KV per test, inputs, and assertions. */

import { SEARCH_PREFIX } from "../../src/kit/search_source.ts";
import assert from "node:assert/strict";
import { DEFAULT_THINKING_LIMITS, type ThinkingLimits } from "../../src/thinking/settings.ts";
import type { ThinkingErrorCode } from "../../src/thinking/store_errors.ts";
import { getHistory, type HistoryThought } from "../../src/thinking/store_history.ts";
import type { ThoughtInput } from "../../src/thinking/store_validate.ts";
export { withKv } from "./kv.ts";

/** The default limits. */
export const LIMITS: ThinkingLimits = DEFAULT_THINKING_LIMITS;

/** The input of thought `n` on the main line, with `extra` fields. */
export function step(n: number, extra: Partial<ThoughtInput> = {}): ThoughtInput {
  return {
    thought: `Thought number ${n}`,
    nextThoughtNeeded: true,
    thoughtNumber: n,
    totalThoughts: 5,
    ...extra,
  };
}

/** Asserts `promise` rejects with the named code at the start of its message. */
export async function rejectsWith(
  promise: Promise<unknown>,
  code: ThinkingErrorCode,
): Promise<string> {
  let message = "";
  await assert.rejects(promise, (error: Error) => {
    message = error.message;
    return error.message.startsWith(`${code}: `);
  }, `expected ${code}`);
  return message;
}

/** Every key in `kv` but the search index's (derived data under its own prefix). */
export async function allKeys(kv: Deno.Kv): Promise<Deno.KvKey[]> {
  const keys = await Array.fromAsync(kv.list({ prefix: [] }), (e) => e.key);
  return keys.filter((key) => key[0] !== SEARCH_PREFIX);
}

/** The whole history of a sequence, read page by page. */
export async function readAll(
  kv: Deno.Kv,
  sequenceId: string,
  options: { order?: "asc" | "desc"; branchId?: string; limit?: number } = {},
): Promise<HistoryThought[]> {
  const out: HistoryThought[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 10_000; pages++) {
    const page = await getHistory(kv, LIMITS, sequenceId, { ...options, cursor });
    out.push(...page.thoughts);
    if (page.nextCursor === null) return out;
    cursor = page.nextCursor;
  }
  throw new Error("history never ended");
}
