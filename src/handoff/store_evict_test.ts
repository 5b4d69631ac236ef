import assert from "node:assert/strict";
import {
  assertConsistent,
  input,
  LIMITS,
  rejectsWith,
  withKv,
} from "../../tests/support/handoff_store.ts";
import { listHandoffs } from "./store_read.ts";
import { saveHandoff } from "./store_save.ts";
import { handoffLeaseKey } from "./store_schema.ts";
import { AppError } from "../kit/errors.ts";

Deno.test("at the limit, a save evicts the oldest handoff and names it", async () => {
  await withKv(async (kv) => {
    const limits = { ...LIMITS, maxHandoffs: 3 };
    for (const key of ["a", "b", "c"]) await saveHandoff(kv, limits, input({ key }));
    await saveHandoff(kv, limits, input({ key: "a", summary: "a again" })); // a is now newest
    const res = await saveHandoff(kv, limits, input({ key: "d" }));
    assert.deepEqual(res.evicted?.key, "b");
    const keys = (await listHandoffs(kv, { limit: 10 })).items.map((h) => h.key);
    assert.deepEqual(keys, ["d", "a", "c"]);
    await assertConsistent(kv);
  });
});

Deno.test("with eviction off a full store refuses new keys but still takes overwrites", async () => {
  await withKv(async (kv) => {
    const limits = { ...LIMITS, maxHandoffs: 2, evictWhenFull: false };
    await saveHandoff(kv, limits, input({ key: "a" }));
    await saveHandoff(kv, limits, input({ key: "b" }));
    await rejectsWith(
      () => saveHandoff(kv, limits, input({ key: "c" })),
      "full",
      /holds 2 handoffs.*HANDOFF_MAX_COUNT=2.*eviction is off/,
    );
    await rejectsWith(() => saveHandoff(kv, limits, input()), "full", /eviction is off/);
    const over = await saveHandoff(kv, limits, input({ key: "a", summary: "again" }));
    assert.equal(over.overwritten, true);
    await assertConsistent(kv);
  });
});

Deno.test("an invalid save into a full store evicts nothing", async () => {
  await withKv(async (kv) => {
    const limits = { ...LIMITS, maxHandoffs: 2 };
    await saveHandoff(kv, limits, input({ key: "a" }));
    await saveHandoff(kv, limits, input({ key: "b" }));
    await rejectsWith(
      () => saveHandoff(kv, limits, input({ key: "c", tags: ["BAD TAG"] })),
      "invalid",
      /tag/,
    );
    assert.equal((await listHandoffs(kv, { limit: 10 })).items.length, 2);
  });
});

Deno.test("eviction skips a handoff held by a merge lease", async () => {
  await withKv(async (kv) => {
    const limits = { ...LIMITS, maxHandoffs: 2 };
    await saveHandoff(kv, limits, input({ key: "old" }));
    await saveHandoff(kv, limits, input({ key: "newer" }));
    await kv.set(handoffLeaseKey("old"), { id: "m", until: Date.now() + 60_000 });
    const res = await saveHandoff(kv, limits, input({ key: "newest" }));
    assert.equal(res.evicted?.key, "newer");
    await kv.delete(handoffLeaseKey("old"));
    await assertConsistent(kv);
  });
});

Deno.test("50 concurrent saves at the limit never exceed it and name every victim", async () => {
  await withKv(async (kv) => {
    const limits = { ...LIMITS, maxHandoffs: 10 };
    for (let i = 0; i < 10; i++) await saveHandoff(kv, limits, input({ key: `seed-${i}` }));
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => saveHandoff(kv, limits, input({ key: `new-${i}` }))),
    );
    const evicted = results.map((r) => r.evicted?.key);
    assert.ok(evicted.every((k) => k !== undefined), "each new key evicted one");
    assert.equal(new Set(evicted).size, 50, "no handoff was evicted twice");
    const left = (await listHandoffs(kv, { limit: 100 })).items.map((h) => h.key);
    assert.equal(left.length, 10);
    assert.deepEqual(
      new Set([...left, ...evicted]),
      new Set([
        ...Array.from({ length: 10 }, (_, i) => `seed-${i}`),
        ...results.map((r) => r.handoff.key),
      ]),
      "every key is either still there or named as evicted",
    );
    await assertConsistent(kv);
  });
});

Deno.test("50 concurrent saves with eviction off fill the store exactly", async () => {
  await withKv(async (kv) => {
    const limits = { ...LIMITS, maxHandoffs: 20, evictWhenFull: false };
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) => saveHandoff(kv, limits, input({ key: `k-${i}` }))),
    );
    assert.equal(results.filter((r) => r.status === "fulfilled").length, 20);
    for (const r of results) {
      if (r.status === "rejected") assert.equal((r.reason as AppError).kind, "full");
    }
    await assertConsistent(kv);
  });
});
