import assert from "node:assert/strict";
import { deleteSequence } from "./store_delete.ts";
import { getHistory, getSequence } from "./store_history.ts";
import {
  MAIN_BRANCH,
  sequenceKey,
  type SequenceRecord,
  thoughtKey,
  thoughtNumberKey,
  type ThoughtRecord,
} from "./store_keys.ts";
import { addThought } from "./store_write.ts";
import {
  allKeys,
  LIMITS,
  readAll,
  rejectsWith,
  step,
  withKv,
} from "../../tests/support/thinking_store.ts";

Deno.test("addThought() creates a sequence with an unguessable id and stores every key", async () => {
  await withKv(async (kv) => {
    const first = await addThought(kv, LIMITS, step(1, { thought: "Plan the cache\nthen more" }));
    assert.match(first.sequenceId, /^seq_[A-Za-z0-9_-]{22}$/);
    assert.deepEqual(first.flags, ["NEW_SEQUENCE"]);
    assert.equal(first.index, 1);
    assert.equal(first.thoughtHistoryLength, 1);
    assert.equal(first.branchId, MAIN_BRANCH);
    const other = await addThought(kv, LIMITS, step(1));
    assert.notEqual(other.sequenceId, first.sequenceId);

    const id = first.sequenceId;
    const seq = (await kv.get<SequenceRecord>(sequenceKey(id))).value!;
    assert.equal(seq.title, "Plan the cache");
    assert.equal(seq.thoughtCount, 1);
    assert.equal(seq.completed, false);
    const thought = (await kv.get<ThoughtRecord>(thoughtKey(id, 1))).value!;
    assert.equal(thought.text, "Plan the cache\nthen more");
    assert.equal(thought.characters, 24);
    assert.equal((await kv.get(thoughtNumberKey(id, MAIN_BRANCH, 1))).value, 1);
    const keys = (await allKeys(kv)).filter((k) => k[1] === id).map((k) => k[0]);
    // No per-branch index entry on the main line while the sequence has no branch.
    assert.deepEqual(keys.sort(), ["sequence", "thought", "thought_number"]);
  });
});

Deno.test("addThought() numbers history without gaps and raises totalThoughts", async () => {
  await withKv(async (kv) => {
    const { sequenceId } = await addThought(kv, LIMITS, step(1));
    const second = await addThought(kv, LIMITS, step(2, { sequenceId }));
    assert.equal(second.thoughtHistoryLength, 2);
    assert.deepEqual(second.flags, []);
    const over = await addThought(kv, LIMITS, step(7, { sequenceId, totalThoughts: 5 }));
    assert.equal(over.totalThoughts, 7);
    assert.deepEqual(over.flags, ["TOTAL_RAISED"]);
    assert.equal(over.thoughtHistoryLength, 3);
  });
});

Deno.test("addThought() reopens a completed sequence and flags it", async () => {
  await withKv(async (kv) => {
    const { sequenceId } = await addThought(kv, LIMITS, step(1, { nextThoughtNeeded: false }));
    assert.equal((await getSequence(kv, LIMITS, sequenceId))!.completed, true);
    const again = await addThought(kv, LIMITS, step(2, { sequenceId }));
    assert.deepEqual(again.flags, ["REOPENED"]);
    assert.equal((await getSequence(kv, LIMITS, sequenceId))!.completed, false);
  });
});

Deno.test("addThought() refuses unknown, malformed and deleted sequences", async () => {
  await withKv(async (kv) => {
    await rejectsWith(
      addThought(kv, LIMITS, step(2, { sequenceId: "seq_AAAAAAAAAAAAAAAAAAAAAA" })),
      "SEQUENCE_NOT_FOUND",
    );
    await rejectsWith(
      addThought(kv, LIMITS, step(2, { sequenceId: "../../etc" })),
      "SEQUENCE_NOT_FOUND",
    );
    const { sequenceId } = await addThought(kv, LIMITS, step(1));
    await deleteSequence(kv, LIMITS, sequenceId, true);
    await rejectsWith(addThought(kv, LIMITS, step(2, { sequenceId })), "SEQUENCE_NOT_FOUND");
    await rejectsWith(getHistory(kv, LIMITS, sequenceId), "SEQUENCE_NOT_FOUND");
  });
});

Deno.test("addThought() enforces the thoughts and branches limits", async () => {
  await withKv(async (kv) => {
    const small = { ...LIMITS, thoughtsPerSequenceMax: 3, branchesMax: 1 };
    const { sequenceId } = await addThought(kv, small, step(1));
    await addThought(kv, small, step(2, { sequenceId, branchId: "a", branchFromThought: 1 }));
    await rejectsWith(
      addThought(kv, small, step(2, { sequenceId, branchId: "b", branchFromThought: 1 })),
      "TOO_MANY_BRANCHES",
    );
    await addThought(kv, small, step(2, { sequenceId }));
    await rejectsWith(addThought(kv, small, step(3, { sequenceId })), "SEQUENCE_FULL");
  });
});

Deno.test("addThought() with 20 concurrent writers loses nothing and numbers without gaps", async () => {
  await withKv(async (kv) => {
    const { sequenceId } = await addThought(kv, LIMITS, step(1));
    const results = await Promise.all(
      Array.from(
        { length: 20 },
        (_, i) => addThought(kv, LIMITS, step(i + 2, { sequenceId, thought: `writer ${i}` })),
      ),
    );
    assert.deepEqual(
      results.map((r) => r.thoughtHistoryLength).sort((a, b) => a - b),
      Array.from({ length: 20 }, (_, i) => i + 2),
    );
    const history = await readAll(kv, sequenceId);
    assert.deepEqual(history.map((t) => t.index), Array.from({ length: 21 }, (_, i) => i + 1));
    assert.deepEqual(
      history.slice(1).map((t) => t.thought).sort(),
      Array.from({ length: 20 }, (_, i) => `writer ${i}`).sort(),
    );
  });
});
