import assert from "node:assert/strict";
import { deleteSequence } from "./store_delete.ts";
import { sequenceKey, type SequenceRecord } from "./store_keys.ts";
import { addThought } from "./store_write.ts";
import { allKeys, LIMITS, rejectsWith, step, withKv } from "../../tests/support/thinking_store.ts";

Deno.test("deleteSequence() removes every key, reports counts, and is safe to repeat", async () => {
  await withKv(async (kv) => {
    const keep = await addThought(kv, LIMITS, step(1));
    const { sequenceId } = await addThought(kv, LIMITS, step(1, { thought: "😀".repeat(20_000) }));
    await addThought(kv, LIMITS, step(2, { sequenceId, branchId: "b", branchFromThought: 1 }));
    await addThought(kv, LIMITS, step(2, { sequenceId }));
    const keysBefore = (await allKeys(kv)).length;

    await rejectsWith(deleteSequence(kv, LIMITS, sequenceId, "true"), "CONFIRM_REQUIRED");
    await rejectsWith(deleteSequence(kv, LIMITS, sequenceId, undefined), "CONFIRM_REQUIRED");
    assert.equal((await allKeys(kv)).length, keysBefore, "refused deletes touch nothing");

    const result = await deleteSequence(kv, LIMITS, sequenceId, true);
    assert.deepEqual(result, { sequenceId, deleted: true, deletedThoughts: 3 });
    const left = await allKeys(kv);
    assert.ok(left.every((k) => k[1] === keep.sequenceId), "only the other sequence remains");
    assert.equal(left.length, 3, "its sequence, thought and number entry");
    assert.deepEqual(await deleteSequence(kv, LIMITS, sequenceId, true), {
      sequenceId,
      deleted: false,
      deletedThoughts: 0,
    });
    assert.equal((await deleteSequence(kv, LIMITS, "garbage", true)).deleted, false);
  });
});

Deno.test("deleteSequence() racing writers leaves no orphan keys", async () => {
  await withKv(async (kv) => {
    const { sequenceId } = await addThought(kv, LIMITS, step(1));
    for (let n = 2; n <= 30; n++) await addThought(kv, LIMITS, step(n, { sequenceId }));
    const writers = Array.from(
      { length: 10 },
      (_, i) =>
        addThought(kv, LIMITS, step(31 + i, { sequenceId })).then(
          () => "ok",
          (e: Error) => e.message.slice(0, 18),
        ),
    );
    const deleting = deleteSequence(kv, LIMITS, sequenceId, true);
    const outcomes = await Promise.all(writers);
    assert.ok(outcomes.every((o) => o === "ok" || o === "SEQUENCE_NOT_FOUND"), String(outcomes));
    // The second delete may overtake the first (which is still retrying its mark against the
    // writers); either way exactly one of them deleted the sequence.
    const again = await deleteSequence(kv, LIMITS, sequenceId, true);
    const results = [await deleting, again];
    assert.equal(results.filter((r) => r.deleted).length, 1, JSON.stringify(results));
    assert.deepEqual(await allKeys(kv), []);
  });
});

Deno.test("deleteSequence() overtaken by a second delete still reports its deletion", async () => {
  await withKv(async (kv) => {
    // A second delete that starts once the first has marked the sequence may remove the record
    // first; the call that marked the sequence is still the one that deleted it.
    for (let round = 0; round < 10; round++) {
      const { sequenceId } = await addThought(kv, LIMITS, step(1));
      for (let n = 2; n <= 30; n++) await addThought(kv, LIMITS, step(n, { sequenceId }));
      const first = deleteSequence(kv, LIMITS, sequenceId, true);
      for (;;) {
        const seq = (await kv.get<SequenceRecord>(sequenceKey(sequenceId))).value;
        if (seq === null || seq.deleting) break;
      }
      const second = await deleteSequence(kv, LIMITS, sequenceId, true);
      const results = [await first, second];
      assert.deepEqual(results.map((r) => r.deleted), [true, false], JSON.stringify(results));
      assert.equal(results[0].deletedThoughts, 30);
      assert.deepEqual(await allKeys(kv), []);
    }
  });
});
