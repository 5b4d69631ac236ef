import assert from "node:assert/strict";
import { deleteSequence } from "./store_delete.ts";
import { getHistory, getSequence } from "./store_history.ts";
import { sequenceKey, type SequenceRecord } from "./store_keys.ts";
import { addThought } from "./store_write.ts";
import {
  allKeys,
  LIMITS,
  readAll,
  rejectsWith,
  step,
  withKv,
} from "../../tests/support/thinking_store.ts";

Deno.test("sequences expire after the retention without writes; writes slide it", async () => {
  await withKv(async (kv) => {
    const day = 86_400_000;
    const limits = { ...LIMITS, retentionMs: 10 * day };
    let now = Date.UTC(2030, 0, 1);
    const clock = () => now;
    const { sequenceId } = await addThought(kv, limits, step(1), { clock });
    const fresh = (await kv.get<SequenceRecord>(sequenceKey(sequenceId))).value!;
    assert.equal(fresh.expiryMs, 20 * day, "keys carry twice the retention");

    now += 9 * day;
    await addThought(kv, limits, step(2, { sequenceId }), { clock });
    now += 9 * day; // 18 days after creation, 9 after the last write: alive.
    const page = await getHistory(kv, limits, sequenceId, {}, clock);
    assert.equal(page.thoughts.length, 2);
    assert.equal(page.sequence.expiresAt, new Date(now - 9 * day + 10 * day).toISOString());
    // The margin since the last reset (18 days > 10) is used up: this write resets every key.
    await addThought(kv, limits, step(3, { sequenceId }), { clock });
    const reset = (await kv.get<SequenceRecord>(sequenceKey(sequenceId))).value!;
    assert.equal(reset.refreshedAt, now);

    now += 10 * day + 1;
    assert.equal(await getSequence(kv, limits, sequenceId, clock), null);
    await rejectsWith(getHistory(kv, limits, sequenceId, {}, clock), "SEQUENCE_NOT_FOUND");
    await rejectsWith(
      addThought(kv, limits, step(4, { sequenceId }), { clock }),
      "SEQUENCE_NOT_FOUND",
    );
    // An expired sequence reports deleted: false but is purged at once.
    const gone = await deleteSequence(kv, limits, sequenceId, true, clock);
    assert.equal(gone.deleted, false);
    assert.deepEqual(await allKeys(kv), []);
  });
});

Deno.test("a retention change is applied to a sequence's keys on its next write", async () => {
  await withKv(async (kv) => {
    const { sequenceId } = await addThought(kv, LIMITS, step(1));
    assert.equal((await kv.get<SequenceRecord>(sequenceKey(sequenceId))).value!.expiryMs, 0);
    const limits = { ...LIMITS, retentionMs: 3_600_000 };
    await addThought(kv, limits, step(2, { sequenceId }));
    const seq = (await kv.get<SequenceRecord>(sequenceKey(sequenceId))).value!;
    assert.equal(seq.expiryMs, 7_200_000);
    await addThought(kv, LIMITS, step(3, { sequenceId }));
    assert.equal((await kv.get<SequenceRecord>(sequenceKey(sequenceId))).value!.expiryMs, 0);
    assert.equal((await readAll(kv, sequenceId)).length, 3);
  });
});

Deno.test("a sequence past the retention it was written under stays expired when the retention is raised or switched off", async () => {
  await withKv(async (kv) => {
    // Its keys were written to expire under the old retention, so KV may already have dropped
    // some thoughts: showing it as live again would show a damaged history.
    const day = 86_400_000;
    const short = { ...LIMITS, retentionMs: 10 * day };
    let now = Date.UTC(2030, 0, 1);
    const clock = () => now;
    const { sequenceId } = await addThought(kv, short, step(1), { clock });
    now += 11 * day;
    for (const limits of [short, { ...LIMITS, retentionMs: 30 * day }, LIMITS]) {
      assert.equal(await getSequence(kv, limits, sequenceId, clock), null, `${limits.retentionMs}`);
      await rejectsWith(getHistory(kv, limits, sequenceId, {}, clock), "SEQUENCE_NOT_FOUND");
      await rejectsWith(
        addThought(kv, limits, step(2, { sequenceId }), { clock }),
        "SEQUENCE_NOT_FOUND",
      );
    }

    // Within the old retention it is live, and says when it expires unless written again.
    const other = (await addThought(kv, short, step(1), { clock })).sequenceId;
    now += 9 * day;
    const page = await getHistory(kv, LIMITS, other, {}, clock);
    assert.equal(page.sequence.expiresAt, new Date(now + day).toISOString());
    // A write under the new setting rewrites every key without expiry: kept until deleted.
    await addThought(kv, LIMITS, step(2, { sequenceId: other }), { clock });
    now += 1000 * day;
    const kept = await getHistory(kv, LIMITS, other, {}, clock);
    assert.equal(kept.thoughts.length, 2);
    assert.equal(kept.sequence.expiresAt, null);
  });
});
