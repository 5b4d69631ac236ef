import assert from "node:assert/strict";
import { getHistory, type HistoryThought } from "./store_history.ts";
import { MAIN_BRANCH } from "./store_keys.ts";
import { addThought } from "./store_write.ts";
import {
  allKeys,
  LIMITS,
  readAll,
  rejectsWith,
  step,
  withKv,
} from "../../tests/support/thinking_store.ts";

Deno.test("getHistory() pages 1,000 thoughts in pages of 7 exactly once in both orders", async () => {
  await withKv(async (kv) => {
    const { sequenceId } = await addThought(kv, LIMITS, step(1));
    for (let n = 2; n <= 1000; n++) {
      const branch = n % 10 === 0 ? { branchId: "side", branchFromThought: 1 } : {};
      await addThought(kv, LIMITS, step(n, { sequenceId, ...branch }));
    }
    const all = Array.from({ length: 1000 }, (_, i) => i + 1);
    for (const order of ["asc", "desc"] as const) {
      const seen = await readAll(kv, sequenceId, { order, limit: 7 });
      assert.deepEqual(seen.map((t) => t.index), order === "asc" ? all : all.toReversed());
      const side = await readAll(kv, sequenceId, { order, limit: 7, branchId: "side" });
      const expected = all.filter((i) => i % 10 === 0);
      assert.deepEqual(
        side.map((t) => t.index),
        order === "asc" ? expected : expected.toReversed(),
      );
      assert.ok(side.every((t) => t.branchId === "side"));
    }
    const main = await readAll(kv, sequenceId, { limit: 100, branchId: MAIN_BRANCH });
    assert.equal(main.length, 900);
  });
});

Deno.test("getHistory() keeps pages within maxCharacters, always advances, and reads a cut thought on", async () => {
  await withKv(async (kv) => {
    const sizes = [10, 10, 500, 10, 10];
    const { sequenceId } = await addThought(kv, LIMITS, step(1, { thought: "a".repeat(sizes[0]) }));
    for (let i = 1; i < sizes.length; i++) {
      await addThought(kv, LIMITS, step(i + 1, { sequenceId, thought: "b".repeat(sizes[i]) }));
    }
    const pages: HistoryThought[][] = [];
    let cursor: string | undefined;
    do {
      const page = await getHistory(kv, LIMITS, sequenceId, { maxCharacters: 100, cursor });
      pages.push(page.thoughts);
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    // The long thought comes alone, 100 characters a page, read on from each cut.
    assert.deepEqual(
      pages.map((p) => p.map((t) => t.index)),
      [[1, 2], [3], [3], [3], [3], [3], [4, 5]],
    );
    const big = pages.slice(1, 6).map((p) => p[0]);
    assert.deepEqual(big.map((t) => t.truncated), [true, true, true, true, false]);
    assert.deepEqual(big.map((t) => t.fromCharacter), [undefined, 100, 200, 300, 400]);
    assert.equal(big.map((t) => t.thought).join(""), "b".repeat(500));
    assert.equal(big[0].characters, 500);
    assert.equal(pages[0][0].truncated, false);
  });
});

Deno.test("getHistory() refuses bad cursors, pages and branches with their codes", async () => {
  await withKv(async (kv) => {
    const { sequenceId } = await addThought(kv, LIMITS, step(1));
    for (let n = 2; n <= 4; n++) await addThought(kv, LIMITS, step(n, { sequenceId }));
    const page = await getHistory(kv, LIMITS, sequenceId, { limit: 2 });
    assert.ok(page.nextCursor);
    await rejectsWith(
      getHistory(kv, LIMITS, sequenceId, { cursor: "not-a-cursor!" }),
      "INVALID_CURSOR",
    );
    await rejectsWith(
      getHistory(kv, LIMITS, sequenceId, { cursor: page.nextCursor, order: "desc" }),
      "INVALID_CURSOR",
    );
    await rejectsWith(
      getHistory(kv, LIMITS, sequenceId, { cursor: page.nextCursor, branchId: "main" }),
      "INVALID_CURSOR",
    );
    await rejectsWith(getHistory(kv, LIMITS, sequenceId, { limit: 0 }), "INVALID_PAGE");
    await rejectsWith(getHistory(kv, LIMITS, sequenceId, { limit: 101 }), "INVALID_PAGE");
    await rejectsWith(
      getHistory(kv, LIMITS, sequenceId, { maxCharacters: 250_001 }),
      "INVALID_PAGE",
    );
    await rejectsWith(getHistory(kv, LIMITS, sequenceId, { branchId: "nope" }), "BRANCH_NOT_FOUND");
    const next = await getHistory(kv, LIMITS, sequenceId, { limit: 2, cursor: page.nextCursor });
    assert.deepEqual(next.thoughts.map((t) => t.index), [3, 4]);
    assert.equal(next.nextCursor, null);
  });
});

Deno.test("getHistory() summarizes the sequence: title, completion, branches, revisions", async () => {
  await withKv(async (kv) => {
    const { sequenceId } = await addThought(
      kv,
      LIMITS,
      step(1, { thought: "  Why is the build slow?  " }),
    );
    await addThought(kv, LIMITS, step(2, { sequenceId }));
    await addThought(kv, LIMITS, step(3, { sequenceId, isRevision: true, revisesThought: 1 }));
    await addThought(kv, LIMITS, step(3, { sequenceId, branchId: "b", branchFromThought: 2 }));
    await addThought(kv, LIMITS, step(4, { sequenceId, nextThoughtNeeded: false }));
    const page = await getHistory(kv, LIMITS, sequenceId);
    const s = page.sequence;
    assert.equal(s.title, "Why is the build slow?");
    assert.equal(s.completed, true);
    assert.equal(s.thoughtHistoryLength, 5);
    assert.equal(s.revisionCount, 1);
    assert.equal(s.expiresAt, null);
    assert.deepEqual(s.branches, [{
      branchId: "b",
      parentBranchId: "main",
      branchFromThought: 2,
      branchFromIndex: 2,
      firstIndex: 4,
      thoughts: 1,
      createdAt: s.branches[0].createdAt,
    }]);
    assert.equal(page.thoughts[2].revisesIndex, 1);
    assert.equal(page.nextCursor, null);
  });
});

Deno.test("getHistory() refuses a branchId that is not a well-formed id", async () => {
  await withKv(async (kv) => {
    const { sequenceId } = await addThought(kv, LIMITS, step(1));
    for (const branchId of ["\uD800", "b\uDC00", "", "  "]) {
      await rejectsWith(getHistory(kv, LIMITS, sequenceId, { branchId }), "BRANCH_ID_INVALID");
    }
  });
});

Deno.test("getHistory() reads the main line whether or not its early thoughts have index entries", async () => {
  await withKv(async (kv) => {
    const { sequenceId } = await addThought(kv, LIMITS, step(1));
    for (let n = 2; n <= 12; n++) {
      const onBranch = n === 5 || n === 9 ? { branchId: "b", branchFromThought: 2 } : {};
      await addThought(kv, LIMITS, step(n, { sequenceId, ...onBranch }));
    }
    const indexed = async () =>
      (await allKeys(kv)).filter((k) => k[0] === "branch_thought" && k[2] === MAIN_BRANCH)
        .map((k) => k[3]);
    // The first branch starts at index 5: main-line entries exist from there on only.
    assert.deepEqual(await indexed(), [6, 7, 8, 10, 11, 12]);
    const main = [1, 2, 3, 4, 6, 7, 8, 10, 11, 12];
    const check = async () => {
      for (const order of ["asc", "desc"] as const) {
        for (const limit of [1, 2, 3, 4, 100]) {
          const got = await readAll(kv, sequenceId, { order, limit, branchId: MAIN_BRANCH });
          assert.deepEqual(
            got.map((t) => t.index),
            order === "asc" ? main : main.toReversed(),
            `${order}, pages of ${limit}`,
          );
        }
      }
    };
    await check();
    // Earlier versions wrote an entry for every main-line thought: those are read past.
    for (const i of [1, 2, 3, 4]) {
      await kv.set(["branch_thought", sequenceId, MAIN_BRANCH, i], i);
    }
    await check();
    // Without branches the main line is the whole history.
    const other = await addThought(kv, LIMITS, step(1));
    await addThought(kv, LIMITS, step(2, { sequenceId: other.sequenceId }));
    for (const order of ["asc", "desc"] as const) {
      const got = await readAll(kv, other.sequenceId, { order, limit: 1, branchId: MAIN_BRANCH });
      assert.deepEqual(got.map((t) => t.index), order === "asc" ? [1, 2] : [2, 1]);
    }
  });
});
