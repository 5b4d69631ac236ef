import assert from "node:assert/strict";
import { appendHandoff } from "./store_append.ts";
import {
  assertConsistent,
  input,
  LIMITS,
  rejectsWith,
  withKv,
} from "../../tests/support/handoff_store.ts";
import { loadHandoff } from "./store_read.ts";
import { saveHandoff } from "./store_save.ts";
import { AppError } from "../kit/errors.ts";

Deno.test("50 concurrent appends all land and the limit is never passed", async () => {
  await withKv(async (kv) => {
    const limits = { ...LIMITS, conversationMaxBytes: 3000 };
    await saveHandoff(kv, limits, input({ key: "a", conversation: "## User\nstart\n" }));
    const piece = (i: number) =>
      `## Assistant\npiece ${String(i).padStart(2, "0")} ${"x".repeat(40)}\n`;
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) => appendHandoff(kv, limits, "a", piece(i))),
    );
    const ok = results.flatMap((r, i) => r.status === "fulfilled" ? [i] : []);
    for (const r of results) {
      if (r.status === "rejected") {
        assert.equal((r.reason as AppError).kind, "too_large");
        assert.match((r.reason as AppError).message, /Nothing was appended/);
      }
    }
    const loaded = await loadHandoff(kv, limits, "a");
    const size = new TextEncoder().encode(loaded.conversation).byteLength;
    assert.ok(size <= 3000);
    assert.equal(loaded.handoff.bytes, size);
    for (const i of ok) assert.ok(loaded.conversation.includes(piece(i)), `piece ${i} landed`);
    const landed = loaded.conversation.match(/piece \d\d/g) ?? [];
    assert.equal(landed.length, ok.length, "nothing extra, nothing lost");
    assert.equal(loaded.handoff.messageCount, 1 + ok.length);
    await assertConsistent(kv);
  });
});

Deno.test("50 concurrent appends under the limit keep every byte", async () => {
  await withKv(async (kv) => {
    await saveHandoff(kv, LIMITS, input({ key: "a", conversation: "## User\nstart\n" }));
    await Promise.all(
      Array.from({ length: 50 }, (_, i) => appendHandoff(kv, LIMITS, "a", `[${i}]`)),
    );
    const loaded = await loadHandoff(kv, LIMITS, "a");
    for (let i = 0; i < 50; i++) assert.ok(loaded.conversation.includes(`[${i}]`));
    assert.equal(loaded.handoff.chunks.length, 1, "small appends are compacted into one chunk");
    await assertConsistent(kv);
  });
});

Deno.test("appendHandoff() builds a 1 MiB conversation from large pieces, exactly", async () => {
  await withKv(async (kv) => {
    const piece = (i: number) => `## User\n${String(i).repeat(10)} ${"ß".repeat(170_000)}\n`;
    await saveHandoff(kv, LIMITS, input({ key: "a", conversation: piece(0) }));
    let expected = piece(0);
    for (let i = 1; i < 3; i++) {
      await appendHandoff(kv, LIMITS, "a", piece(i));
      expected += piece(i);
    }
    const loaded = await loadHandoff(kv, LIMITS, "a");
    assert.equal(loaded.conversation, expected);
    assert.equal(loaded.handoff.messageCount, 3);
    await rejectsWith(
      () => appendHandoff(kv, LIMITS, "a", "x".repeat(30_000)),
      "too_large",
      /together \d+ bytes.*Nothing was appended/,
    );
    assert.equal((await loadHandoff(kv, LIMITS, "a")).conversation, expected);
    await rejectsWith(() => appendHandoff(kv, LIMITS, "missing", "x"), "not_found", /no handoff/);
    await assertConsistent(kv);
  });
});
