import assert from "node:assert/strict";
import {
  CHUNK_BYTES,
  countPendingDeletes,
  deleteWith,
  INLINE_DELETES,
  readChunks,
  splitBytes,
  STAGE_TTL_MS,
  stageWrites,
  sweepPendingDeletes,
} from "./chunks.ts";
import { withKv } from "../../tests/support/kv.ts";

async function keysUnder(kv: Deno.Kv, prefix: Deno.KvKey): Promise<Deno.KvKey[]> {
  return (await Array.fromAsync(kv.list({ prefix }))).map((e) => e.key);
}

function bytesOf(n: number, seed = 7): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = (i * seed + 13) % 251;
  return out;
}

Deno.test("splitBytes() cuts at CHUNK_BYTES and keeps every byte", () => {
  const data = bytesOf(CHUNK_BYTES * 2 + 5);
  const parts = splitBytes(data);
  assert.deepEqual(parts.map((p) => p.byteLength), [CHUNK_BYTES, CHUNK_BYTES, 5]);
  assert.deepEqual(splitBytes(new Uint8Array(0)), []);
});

Deno.test("Deno KV limits the chunking relies on hold (64 KiB values, 800 KiB atomics)", async () => {
  await withKv(async (kv) => {
    await kv.set(["v"], new Uint8Array(CHUNK_BYTES));
    await assert.rejects(() => kv.set(["v"], new Uint8Array(65_537)), /too large/i);
    const op = kv.atomic();
    for (let i = 0; i < 14; i++) op.set(["big", i], new Uint8Array(CHUNK_BYTES));
    await assert.rejects(() => op.commit(), /Total mutation size too large/);
    const tooMany = kv.atomic();
    for (let i = 0; i < 1001; i++) tooMany.set(["m", i], 1);
    await assert.rejects(() => tooMany.commit(), /Too many mutations/);
  });
});

Deno.test("stageWrites() keeps small sets for the adopting atomic", async () => {
  await withKv(async (kv) => {
    const staged = await stageWrites(kv, [[["c", 1], bytesOf(100)]]);
    assert.ok(staged.inlineBytes > 0);
    assert.deepEqual(await keysUnder(kv, ["c"]), [], "nothing written before adoption");
    const res = await staged.adopt(kv.atomic()).commit();
    assert.ok(res.ok);
    assert.deepEqual(await keysUnder(kv, ["c"]), [["c", 1]]);
  });
});

Deno.test("stageWrites() writes large sets in batches under a pending record, adopted atomically", async () => {
  await withKv(async (kv) => {
    const entries = splitBytes(bytesOf(1024 * 1024)).map((p, i) => [["c", i], p.slice()] as const);
    const batches: number[] = [];
    const staged = await stageWrites(kv, entries, { onBatch: (done) => void batches.push(done) });
    assert.equal(staged.inlineBytes, 0);
    assert.ok(batches.length >= 2, "1 MiB does not fit one atomic");
    assert.equal(await countPendingDeletes(kv), 1);
    const res = await staged.adopt(kv.atomic().set(["owner"], "x")).commit();
    assert.ok(res.ok);
    assert.equal(await countPendingDeletes(kv), 0);
    const back = await readChunks(kv, entries.map(([k]) => k));
    assert.deepEqual(back, bytesOf(1024 * 1024));
    // A sweep long after must not touch adopted chunks.
    assert.equal(await sweepPendingDeletes(kv, Date.now() + 2 * STAGE_TTL_MS), 0);
    assert.equal((await keysUnder(kv, ["c"])).length, entries.length);
  });
});

Deno.test("stageWrites() abandon() deletes staged chunks; a dead writer's are swept after the TTL", async () => {
  await withKv(async (kv) => {
    const entries = splitBytes(bytesOf(700_000)).map((p, i) => [["c", i], p.slice()] as const);
    const first = await stageWrites(kv, entries);
    await first.abandon();
    assert.deepEqual(await keysUnder(kv, ["c"]), []);
    assert.equal(await countPendingDeletes(kv), 0);

    await stageWrites(kv, entries); // its writer "dies" here: never adopted nor abandoned
    assert.equal((await keysUnder(kv, ["c"])).length, entries.length);
    assert.equal(await sweepPendingDeletes(kv), 0, "not before the TTL");
    assert.equal(await sweepPendingDeletes(kv, Date.now() + STAGE_TTL_MS + 1), 1);
    assert.deepEqual(await keysUnder(kv, ["c"]), []);
    assert.equal(await countPendingDeletes(kv), 0);
  });
});

Deno.test("stageWrites() abandon() after adoption deletes nothing", async () => {
  await withKv(async (kv) => {
    const entries = splitBytes(bytesOf(700_000)).map((p, i) => [["c", i], p.slice()] as const);
    const staged = await stageWrites(kv, entries);
    assert.ok((await staged.adopt(kv.atomic()).commit()).ok);
    await staged.abandon();
    assert.equal((await keysUnder(kv, ["c"])).length, entries.length);
  });
});

Deno.test("deleteWith() deletes few keys inline and many through a collected record", async () => {
  await withKv(async (kv) => {
    for (let i = 0; i < 500; i++) await kv.set(["g", i], i);
    const few = Array.from({ length: INLINE_DELETES }, (_, i) => ["g", i] as Deno.KvKey);
    const op1 = kv.atomic();
    const collect1 = deleteWith(kv, op1, few);
    assert.ok((await op1.commit()).ok);
    await collect1();
    assert.equal((await keysUnder(kv, ["g"])).length, 500 - INLINE_DELETES);
    assert.equal(await countPendingDeletes(kv), 0);

    const many = Array.from(
      { length: 500 - INLINE_DELETES },
      (_, i) => ["g", i + INLINE_DELETES] as Deno.KvKey,
    );
    const op2 = kv.atomic();
    deleteWith(kv, op2, many); // collector not run: as if the process died right after commit
    assert.ok((await op2.commit()).ok);
    assert.equal(await countPendingDeletes(kv), 1);
    assert.equal(await sweepPendingDeletes(kv), 1);
    assert.deepEqual(await keysUnder(kv, ["g"]), []);
    assert.equal(await countPendingDeletes(kv), 0);
  });
});
