import assert from "node:assert/strict";
import { appendHandoff } from "./store_append.ts";
import { addComment, deleteComment } from "./store_comments.ts";
import { clearHandoffs, deleteHandoff } from "./store_delete.ts";
import { assertConsistent, input, LIMITS } from "../../tests/support/handoff_store.ts";
import { mergeHandoffs } from "./store_merge.ts";
import { saveHandoff } from "./store_save.ts";
import { type Handoff, handoffLeasePrefix, handoffPrefix } from "./store_schema.ts";
import { AppError } from "../kit/errors.ts";

Deno.test("two KV handles on one file (two processes) never fail large writes with 'database is locked'", async () => {
  const dir = await Deno.makeTempDir();
  const first = await Deno.openKv(`${dir}/kv.sqlite`);
  const second = await Deno.openKv(`${dir}/kv.sqlite`);
  try {
    const big = "## User\n" + "ü".repeat(250_000); // 500 KB: staged before its record
    for (let i = 0; i < 4; i++) {
      await saveHandoff(first, LIMITS, input({ key: `k${i}`, conversation: big }));
    }
    const results = await Promise.allSettled(Array.from({ length: 30 }, (_, i) => {
      const kv = i % 2 ? second : first;
      if (i % 5 === 0) {
        // Too large once both sources hold `big`: refused after the sources were leased.
        return mergeHandoffs(kv, LIMITS, { keys: [`k${i % 4}`, `k${(i + 2) % 4}`] });
      }
      if (i % 3 === 0) return appendHandoff(kv, LIMITS, `k${i % 4}`, "x".repeat(200_000));
      return saveHandoff(kv, LIMITS, input({ key: `k${i % 6}`, conversation: big }));
    }));
    for (const r of results) {
      if (r.status === "rejected") {
        assert.ok(r.reason instanceof AppError, `a plain failure escaped: ${r.reason}`);
      }
    }
    assert.deepEqual(
      await Array.fromAsync(first.list({ prefix: ["handoff_lease"] })),
      [],
      "every merge gave its leases back",
    );
    await clearHandoffs(first, LIMITS);
    await assertConsistent(first);
  } finally {
    first.close();
    second.close();
    await Deno.remove(dir, { recursive: true });
  }
});

/** A seeded sequence of numbers in [0, 1), so a failing mix can be replayed. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
}

for (const file of [false, true]) {
  const where = file ? "two handles on one file" : "one in-memory KV";
  Deno.test(`a mix of concurrent saves, appends, deletes, merges, comments and a clear leaves KV consistent (${where})`, async () => {
    const dir = file ? await Deno.makeTempDir() : null;
    const first = await Deno.openKv(dir ? `${dir}/kv.sqlite` : ":memory:");
    const second = dir ? await Deno.openKv(`${dir}/kv.sqlite`) : first;
    try {
      const limits = { ...LIMITS, maxHandoffs: 8 };
      const big = "## User\n" + "ü".repeat(250_000);
      for (const seed of [1, 2, 3]) {
        for (let i = 0; i < 8; i++) {
          await saveHandoff(first, limits, input({ key: `k${i}` }));
          await addComment(first, limits, `k${i}`, `seed comment ${i}`);
        }
        const random = seeded(seed);
        const k = (i: number) => `k${i % 12}`;
        const ops = Array.from({ length: 100 }, (_, i) => async () => {
          const kv = i % 2 ? second : first;
          await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 40)));
          switch (i === 50 ? -1 : Math.floor(random() * 10)) {
            case -1:
              return await clearHandoffs(kv, limits);
            case 0:
              return await saveHandoff(kv, limits, input({ key: k(i) }));
            case 1:
              return await saveHandoff(kv, limits, input({ key: k(i + 3), conversation: big }));
            case 2:
              return await appendHandoff(kv, limits, k(i), "\n## Assistant\nmore\n");
            case 3:
              return await appendHandoff(kv, limits, k(i), "x".repeat(320_000));
            case 4:
              return await deleteHandoff(kv, limits, k(i));
            case 5:
              return await mergeHandoffs(kv, limits, {
                keys: [k(i), k(i + 1)],
                newKey: k(i + 5),
                deleteSources: i % 3 === 0,
              });
            case 6:
              return await mergeHandoffs(kv, limits, {
                keys: [k(i), k(i + 2)],
                newKey: k(i),
                deleteSources: true,
              });
            case 7:
              return await addComment(kv, limits, k(i), `comment ${i}`);
            case 8:
              return await saveHandoff(kv, limits, input({ conversation: big })); // generated key
            default:
              return await deleteComment(kv, limits, k(i), "01JAAAAAAAAAAAAAAAAAAAAAAA");
          }
        });
        const results = await Promise.allSettled(ops.map((op) => op()));
        for (const r of results) {
          if (r.status === "rejected") {
            assert.ok(r.reason instanceof AppError, `seed ${seed}: ${r.reason}`);
          }
        }
        await assertConsistent(first);
        const records = await Array.fromAsync(first.list<Handoff>({ prefix: handoffPrefix() }));
        assert.ok(records.length <= limits.maxHandoffs, `seed ${seed}: over the maximum`);
        for (const { value: h } of records) {
          assert.equal(new Set(h.commentIds).size, h.commentIds.length, `seed ${seed}: ${h.key}`);
        }
        assert.deepEqual(
          await Array.fromAsync(first.list({ prefix: handoffLeasePrefix() })),
          [],
          `seed ${seed}: every lease was given back`,
        );
        await clearHandoffs(first, limits);
      }
    } finally {
      first.close();
      if (dir) {
        second.close();
        await Deno.remove(dir, { recursive: true });
      }
    }
  });
}
