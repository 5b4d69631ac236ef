import assert from "node:assert/strict";
import { getHistory, getSequence } from "./store_history.ts";
import { branchKey, MAIN_BRANCH } from "./store_keys.ts";
import { addThought } from "./store_write.ts";
import { LIMITS, rejectsWith, step, withKv } from "../../tests/support/thinking_store.ts";

Deno.test("addThought() accepts a reused number and later references resolve to the newest", async () => {
  await withKv(async (kv) => {
    const { sequenceId } = await addThought(kv, LIMITS, step(1));
    await addThought(kv, LIMITS, step(2, { sequenceId, thought: "first two" }));
    const reused = await addThought(kv, LIMITS, step(2, { sequenceId, thought: "second two" }));
    assert.deepEqual(reused.flags, ["NUMBER_REUSED"]);
    const revision = await addThought(
      kv,
      LIMITS,
      step(3, { sequenceId, isRevision: true, revisesThought: 2 }),
    );
    assert.equal(revision.revisesIndex, 3, "resolves to the newest thought numbered 2");
    const branch = await addThought(
      kv,
      LIMITS,
      step(3, { sequenceId, branchId: "alt", branchFromThought: 2 }),
    );
    assert.equal(branch.branchFromIndex, 3);
  });
});

Deno.test("addThought() creates, continues and lists branches in creation order", async () => {
  await withKv(async (kv) => {
    const { sequenceId } = await addThought(kv, LIMITS, step(1));
    await addThought(kv, LIMITS, step(2, { sequenceId }));
    const zeta = await addThought(
      kv,
      LIMITS,
      step(3, { sequenceId, branchId: "zeta", branchFromThought: 2 }),
    );
    assert.equal(zeta.branchId, "zeta");
    assert.equal(zeta.branchFromIndex, 2);
    assert.equal(zeta.branchFromBranchId, MAIN_BRANCH);
    assert.deepEqual(zeta.branches, ["zeta"]);
    // Continuing: with branchId alone, and repeating the same fork point.
    const cont = await addThought(kv, LIMITS, step(4, { sequenceId, branchId: "zeta" }));
    assert.equal(cont.branchId, "zeta");
    const repeat = await addThought(
      kv,
      LIMITS,
      step(5, { sequenceId, branchId: "zeta", branchFromThought: 2 }),
    );
    assert.equal(repeat.branchFromIndex, 2);
    const alpha = await addThought(
      kv,
      LIMITS,
      step(2, { sequenceId, branchId: "alpha", branchFromThought: 1 }),
    );
    assert.deepEqual(alpha.branches, ["zeta", "alpha"], "creation order, not sorted");
    // "main" names the main line explicitly.
    const main = await addThought(kv, LIMITS, step(3, { sequenceId, branchId: MAIN_BRANCH }));
    assert.equal(main.branchId, MAIN_BRANCH);
    assert.equal(main.thoughtHistoryLength, 7);

    const history = await getHistory(kv, LIMITS, sequenceId);
    assert.deepEqual(
      history.sequence.branches.map((
        b,
      ) => [b.branchId, b.parentBranchId, b.branchFromThought, b.thoughts]),
      [["zeta", "main", 2, 3], ["alpha", "main", 1, 1]],
    );
    assert.equal(history.sequence.mainThoughts, 3);
  });
});

Deno.test("addThought() resolves references on the branch first, then its ancestors", async () => {
  await withKv(async (kv) => {
    const { sequenceId } = await addThought(kv, LIMITS, step(1));
    await addThought(kv, LIMITS, step(2, { sequenceId })); // #2 main 2
    await addThought(kv, LIMITS, step(3, { sequenceId })); // #3 main 3
    await addThought(kv, LIMITS, step(3, { sequenceId, branchId: "a", branchFromThought: 2 })); // #4 a 3
    await addThought(kv, LIMITS, step(4, { sequenceId, branchId: "a" })); // #5 a 4
    // b forks from a's thought 4; its lineage is b → a → main.
    const b = await addThought(
      kv,
      LIMITS,
      step(5, { sequenceId, branchId: "b", branchFromThought: 4, branchFromBranchId: "a" }),
    );
    assert.equal(b.branchFromIndex, 5);
    const onB = (revisesThought: number) =>
      addThought(
        kv,
        LIMITS,
        step(6, { sequenceId, branchId: "b", isRevision: true, revisesThought }),
      );
    assert.equal((await onB(3)).revisesIndex, 4, "a's 3 shadows main's 3");
    assert.equal((await onB(1)).revisesIndex, 1, "falls back to main");
    assert.equal((await onB(5)).revisesIndex, 6, "b's own 5 first");
    // Forking from a thought of an ancestor of the parent also resolves.
    const c = await addThought(
      kv,
      LIMITS,
      step(2, { sequenceId, branchId: "c", branchFromThought: 1, branchFromBranchId: "b" }),
    );
    assert.equal(c.branchFromIndex, 1);
    const branch = (await kv.get<{ ancestors: string[] }>(branchKey(sequenceId, "c"))).value!;
    assert.deepEqual(branch.ancestors, ["b", "a", "main"]);
  });
});

Deno.test("addThought() refuses each invalid branch or revision with its own code", async () => {
  await withKv(async (kv) => {
    const { sequenceId } = await addThought(kv, LIMITS, step(1));
    await addThought(kv, LIMITS, step(2, { sequenceId }));
    await addThought(kv, LIMITS, step(3, { sequenceId, branchId: "alt", branchFromThought: 2 }));
    const before = (await getSequence(kv, LIMITS, sequenceId))!.thoughtCount;

    await rejectsWith(
      addThought(kv, LIMITS, step(4, { sequenceId, branchId: "new", branchFromThought: 9 })),
      "BRANCH_POINT_NOT_FOUND",
    );
    await rejectsWith(
      addThought(kv, LIMITS, step(4, { sequenceId, branchId: "alt", branchFromThought: 1 })),
      "BRANCH_FORK_MISMATCH",
    );
    await rejectsWith(
      addThought(
        kv,
        LIMITS,
        step(4, {
          sequenceId,
          branchId: "alt",
          branchFromThought: 2,
          branchFromBranchId: "other",
        }),
      ),
      "BRANCH_FORK_MISMATCH",
    );
    await rejectsWith(
      addThought(kv, LIMITS, step(4, { sequenceId, branchFromThought: 2 })),
      "BRANCH_ID_REQUIRED",
    );
    await rejectsWith(
      addThought(kv, LIMITS, step(4, { sequenceId, branchId: "ghost" })),
      "BRANCH_NOT_FOUND",
    );
    await rejectsWith(
      addThought(
        kv,
        LIMITS,
        step(4, { sequenceId, branchId: "x", branchFromThought: 2, branchFromBranchId: "ghost" }),
      ),
      "BRANCH_NOT_FOUND",
    );
    await rejectsWith(
      addThought(kv, LIMITS, step(4, { sequenceId, branchFromBranchId: "alt" })),
      "BRANCH_POINT_REQUIRED",
    );
    await rejectsWith(
      addThought(kv, LIMITS, step(4, { sequenceId, branchId: "main", branchFromThought: 1 })),
      "BRANCH_ID_INVALID",
    );
    await rejectsWith(
      addThought(kv, LIMITS, step(4, { sequenceId, branchId: "x".repeat(65) })),
      "BRANCH_ID_INVALID",
    );
    await rejectsWith(
      addThought(kv, LIMITS, step(4, { sequenceId, branchId: "a\u0000b" })),
      "BRANCH_ID_INVALID",
    );
    await rejectsWith(
      addThought(kv, LIMITS, step(4, { sequenceId, revisesThought: 1 })),
      "REVISION_FLAGS_MISMATCH",
    );
    await rejectsWith(
      addThought(kv, LIMITS, step(4, { sequenceId, isRevision: false, revisesThought: 1 })),
      "REVISION_FLAGS_MISMATCH",
    );
    await rejectsWith(
      addThought(kv, LIMITS, step(4, { sequenceId, isRevision: true })),
      "REVISION_FLAGS_MISMATCH",
    );
    await rejectsWith(
      addThought(kv, LIMITS, step(4, { sequenceId, isRevision: true, revisesThought: 9 })),
      "REVISION_TARGET_NOT_FOUND",
    );
    // Main's thought 3 does not exist (3 is on "alt"), so a main-line revision of 3 fails.
    await rejectsWith(
      addThought(kv, LIMITS, step(4, { sequenceId, isRevision: true, revisesThought: 3 })),
      "REVISION_TARGET_NOT_FOUND",
    );
    assert.equal((await getSequence(kv, LIMITS, sequenceId))!.thoughtCount, before);
  });
});
