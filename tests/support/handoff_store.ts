/** Fixtures for the handoff store's unit tests: a fresh KV, a save input, orphan checks. */

import { SEARCH_PREFIX } from "../../src/kit/search_source.ts";
import assert from "node:assert/strict";
import { DEFAULT_HANDOFF_LIMITS, type HandoffLimits } from "../../src/handoff/settings.ts";
import { countPendingDeletes } from "../../src/kit/chunks.ts";
import type { SaveInput } from "../../src/handoff/store_save.ts";
import { type Handoff, handoffCountKey } from "../../src/handoff/store_schema.ts";
import { AppError } from "../../src/kit/errors.ts";
export { withKv } from "./kv.ts";

/** The default limits. */
export const LIMITS: HandoffLimits = { ...DEFAULT_HANDOFF_LIMITS };

/** A valid save input, with `overrides`. */
export function input(overrides: Partial<SaveInput> = {}): SaveInput {
  return {
    summary: "Designing the handoff store",
    conversation: "## User\nhello\n\n## Assistant\nhi there\n",
    ...overrides,
  };
}

/** Every key in KV grouped by its first part, to catch orphans (the search index aside). */
export async function census(kv: Deno.Kv): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for await (const e of kv.list({ prefix: [] })) {
    const name = String(e.key[0]);
    if (name === SEARCH_PREFIX) continue;
    out[name] = (out[name] ?? 0) + 1;
  }
  return out;
}

/** Asserts the KV holds exactly what the records point at: no orphans, count right. */
export async function assertConsistent(kv: Deno.Kv): Promise<void> {
  const records = (await Array.fromAsync(kv.list<Handoff>({ prefix: ["handoff"] }))).map((e) =>
    e.value
  );
  const chunks = await Array.fromAsync(kv.list({ prefix: ["handoff_chunk"] }));
  const comments = await Array.fromAsync(kv.list({ prefix: ["handoff_comment"] }));
  const times = await Array.fromAsync(kv.list<string>({ prefix: ["handoff_time"] }));
  const count = (await kv.get<number>(handoffCountKey())).value ?? 0;
  assert.equal(count, records.length, "count matches the records");
  assert.equal(times.length, records.length, "one time entry per record");
  const chunkIds = new Set(records.flatMap((h) => h.chunks.map((c) => `${h.key}/${c.id}`)));
  assert.deepEqual(
    new Set(chunks.map((e) => `${String(e.key[1])}/${String(e.key[2])}`)),
    chunkIds,
    "chunks are exactly those the records list",
  );
  const commentIds = new Set(records.flatMap((h) => h.commentIds.map((c) => `${h.key}/${c}`)));
  assert.deepEqual(
    new Set(comments.map((e) => `${String(e.key[1])}/${String(e.key[2])}`)),
    commentIds,
  );
  assert.equal(await countPendingDeletes(kv), 0, "no pending deletes left behind");
}

/** Asserts `fn` rejects with a AppError of `kind` whose message matches. */
export async function rejectsWith(
  fn: () => Promise<unknown>,
  kind: AppError["kind"],
  message: RegExp,
): Promise<void> {
  await assert.rejects(fn, (error: unknown) => {
    assert.ok(error instanceof AppError, `expected AppError, got ${error}`);
    assert.equal(error.kind, kind, error.message);
    assert.match(error.message, message);
    return true;
  });
}
