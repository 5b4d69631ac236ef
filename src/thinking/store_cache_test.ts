import assert from "node:assert/strict";
import { SequenceCache } from "./store_cache.ts";
import { deleteSequence } from "./store_delete.ts";
import type { ThoughtInput } from "./store_validate.ts";
import { addThought } from "./store_write.ts";
import { LIMITS, readAll, rejectsWith, step, withKv } from "../../tests/support/thinking_store.ts";

Deno.test("a session cache skips reads yet stays correct when other writers get in first", async () => {
  await withKv(async (kv) => {
    const cache = new SequenceCache();
    const mine = (n: number, extra: Partial<ThoughtInput> = {}) =>
      addThought(kv, LIMITS, step(n, { sequenceId, ...extra }), { cache });
    const { sequenceId } = await addThought(kv, LIMITS, step(1), { cache });
    assert.equal((await mine(2)).index, 2);
    // Another writer (no cache) adds a thought and a branch behind this session's back.
    await addThought(kv, LIMITS, step(3, { sequenceId }));
    await addThought(kv, LIMITS, step(4, { sequenceId, branchId: "theirs", branchFromThought: 2 }));
    const next = await mine(4);
    assert.equal(next.index, 5, "the stale cache failed its check and the retry read afresh");
    assert.deepEqual(next.branches, ["theirs"]);
    // A number reused on the main line is caught by the commit's check, not a read.
    const reused = await mine(4, { thought: "again" });
    assert.deepEqual(reused.flags, ["NUMBER_REUSED"]);
    assert.equal(reused.index, 6);
    // Branch records learned from the store are used for later thoughts.
    const onTheirs = await mine(5, { branchId: "theirs" });
    assert.equal(onTheirs.branchId, "theirs");
    const fork = await mine(5, {
      branchId: "mine",
      branchFromThought: 4,
      branchFromBranchId: "theirs",
    });
    assert.equal(fork.branchFromIndex, 4);
    const cont = await mine(6, { branchId: "mine", branchFromThought: 4 });
    assert.equal(cont.branchFromIndex, 4);
    await rejectsWith(
      mine(7, { branchId: "mine", branchFromThought: 3 }),
      "BRANCH_FORK_MISMATCH",
    );
    const history = await readAll(kv, sequenceId);
    assert.deepEqual(history.map((t) => t.index), [1, 2, 3, 4, 5, 6, 7, 8, 9]);
    await deleteSequence(kv, LIMITS, sequenceId, true);
    await rejectsWith(mine(8), "SEQUENCE_NOT_FOUND");
  });
});

Deno.test("20 concurrent writers with their own session caches number without gaps", async () => {
  await withKv(async (kv) => {
    const { sequenceId } = await addThought(kv, LIMITS, step(1));
    const caches = Array.from({ length: 20 }, () => new SequenceCache());
    for (const [i, cache] of caches.entries()) {
      await addThought(kv, LIMITS, step(i + 2, { sequenceId }), { cache });
    }
    const rounds = await Promise.all(caches.map(async (cache, i) => {
      const out: number[] = [];
      for (let r = 0; r < 3; r++) {
        const n = 100 + i * 3 + r;
        out.push((await addThought(kv, LIMITS, step(n, { sequenceId }), { cache })).index);
      }
      return out;
    }));
    assert.deepEqual(
      rounds.flat().sort((a, b) => a - b),
      Array.from({ length: 60 }, (_, i) => i + 22),
    );
    const history = await readAll(kv, sequenceId, { limit: 100 });
    assert.deepEqual(history.map((t) => t.index), Array.from({ length: 81 }, (_, i) => i + 1));
  });
});

Deno.test("one cache shared by many writers and sequences keeps the last written, numbers without gaps", async () => {
  await withKv(async (kv) => {
    const cache = new SequenceCache(2);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push((await addThought(kv, LIMITS, step(1), { cache })).sequenceId);
    }
    assert.equal(cache.take(ids[0]), undefined, "the least recently written is dropped");
    assert.equal(cache.take(ids[2])?.seq.id, ids[2]);
    // 20 writers on one sequence through one cache: its check keeps every index unique.
    const sequenceId = ids[1];
    const indexes = await Promise.all(
      Array.from(
        { length: 20 },
        (_, i) =>
          addThought(kv, LIMITS, step(i + 2, { sequenceId }), { cache }).then((r) => r.index),
      ),
    );
    assert.deepEqual(indexes.sort((a, b) => a - b), Array.from({ length: 20 }, (_, i) => i + 2));
    const history = await readAll(kv, sequenceId);
    assert.deepEqual(history.map((t) => t.index), Array.from({ length: 21 }, (_, i) => i + 1));
  });
});

/** The keys each commit on `kv` checks, one list per commit, from now on. */
function recordChecks(kv: Deno.Kv): Deno.KvKey[][] {
  const commits: Deno.KvKey[][] = [];
  const atomic = kv.atomic.bind(kv);
  kv.atomic = () => {
    const op = atomic();
    const keys: Deno.KvKey[] = [];
    const check = op.check.bind(op);
    op.check = (...checks) => {
      keys.push(...checks.map((c) => c.key));
      return check(...checks);
    };
    const commit = op.commit.bind(op);
    op.commit = () => {
      commits.push(keys);
      return commit();
    };
    return op;
  };
  return commits;
}

Deno.test("a session that wrote a sequence from its start checks no number it knows is new", async () => {
  await withKv(async (kv) => {
    const cache = new SequenceCache();
    const { sequenceId } = await addThought(kv, LIMITS, step(1), { cache });
    const mine = (n: number, extra: Partial<ThoughtInput> = {}) =>
      addThought(kv, LIMITS, step(n, { sequenceId, totalThoughts: 20, ...extra }), { cache });
    const commits = recordChecks(kv);
    await mine(2);
    await mine(5);
    await mine(1, { branchId: "b", branchFromThought: 2 });
    await mine(2, { branchId: "b" });
    assert.deepEqual(commits.map((keys) => keys.length), [1, 1, 1, 1], "the sequence only");
    // A number at or below the highest may be taken: the commit checks it, and the retry reads.
    commits.length = 0;
    const reused = await mine(2);
    assert.deepEqual(reused.flags, ["NUMBER_REUSED"]);
    assert.deepEqual(commits.map((keys) => keys.length), [2, 1]);
    const unused = await mine(4);
    assert.deepEqual(unused.flags, []);
    // Another writer behind the session's back: its check fails, and from the read on the
    // session no longer claims to know every number.
    await addThought(kv, LIMITS, step(9, { sequenceId }));
    commits.length = 0;
    assert.deepEqual((await mine(9)).flags, ["NUMBER_REUSED"]);
    assert.deepEqual((await mine(10)).flags, []);
    assert.equal(commits.at(-1)!.length, 2, "the number is checked again");
    const history = await readAll(kv, sequenceId);
    assert.deepEqual(history.map((t) => t.thoughtNumber), [1, 2, 5, 1, 2, 2, 4, 9, 9, 10]);
  });
});
