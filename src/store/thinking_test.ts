import assert from "node:assert/strict";
import { DEFAULT_THINKING_LIMITS, type ThinkingLimits } from "../config.ts";
import {
  addThought,
  branchKey,
  deleteSequence,
  getHistory,
  getSequence,
  type HistoryThought,
  MAIN_BRANCH,
  SequenceCache,
  sequenceKey,
  type SequenceRecord,
  splitText,
  THINKING_ERRORS,
  type ThinkingErrorCode,
  type ThoughtInput,
  thoughtKey,
  thoughtNumberKey,
  thoughtPartKey,
  type ThoughtRecord,
} from "./thinking.ts";

const LIMITS: ThinkingLimits = DEFAULT_THINKING_LIMITS;

async function withKv(fn: (kv: Deno.Kv) => Promise<void>): Promise<void> {
  const kv = await Deno.openKv(":memory:");
  try {
    await fn(kv);
  } finally {
    kv.close();
  }
}

function step(n: number, extra: Partial<ThoughtInput> = {}): ThoughtInput {
  return {
    thought: `Thought number ${n}`,
    nextThoughtNeeded: true,
    thoughtNumber: n,
    totalThoughts: 5,
    ...extra,
  };
}

/** Asserts `promise` rejects with the named code at the start of its message. */
async function rejectsWith(promise: Promise<unknown>, code: ThinkingErrorCode): Promise<string> {
  let message = "";
  await assert.rejects(promise, (error: Error) => {
    message = error.message;
    return error.message.startsWith(`${code}: `);
  }, `expected ${code}`);
  return message;
}

async function allKeys(kv: Deno.Kv): Promise<Deno.KvKey[]> {
  return await Array.fromAsync(kv.list({ prefix: [] }), (e) => e.key);
}

async function readAll(
  kv: Deno.Kv,
  sequenceId: string,
  options: { order?: "asc" | "desc"; branchId?: string; limit?: number } = {},
): Promise<HistoryThought[]> {
  const out: HistoryThought[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 10_000; pages++) {
    const page = await getHistory(kv, LIMITS, sequenceId, { ...options, cursor });
    out.push(...page.thoughts);
    if (page.nextCursor === null) return out;
    cursor = page.nextCursor;
  }
  throw new Error("history never ended");
}

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
    assert.deepEqual(keys.sort(), ["branch_thought", "sequence", "thought", "thought_number"]);
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

Deno.test("addThought() refuses empty, too long and out-of-range input", async () => {
  await withKv(async (kv) => {
    await rejectsWith(addThought(kv, LIMITS, step(1, { thought: " \n\t" })), "THOUGHT_EMPTY");
    const message = await rejectsWith(
      addThought(kv, LIMITS, step(1, { thought: "é".repeat(20_001) })),
      "THOUGHT_TOO_LONG",
    );
    assert.match(message, /20001 characters; at most 20000/);
    await rejectsWith(addThought(kv, LIMITS, step(0)), "NUMBER_OUT_OF_RANGE");
    await rejectsWith(addThought(kv, LIMITS, step(1_000_001)), "NUMBER_OUT_OF_RANGE");
    await rejectsWith(addThought(kv, LIMITS, step(1.5)), "NUMBER_OUT_OF_RANGE");
    await rejectsWith(
      addThought(kv, LIMITS, step(1, { totalThoughts: 2_000_000 })),
      "NUMBER_OUT_OF_RANGE",
    );
    assert.deepEqual(await allKeys(kv), [], "nothing was written");
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

Deno.test("addThought() stores 20,000 characters of any script and reads them back intact", async () => {
  await withKv(async (kv) => {
    const texts = {
      emoji: "😀".repeat(20_000),
      cjk: "漢".repeat(20_000),
      astralCjk: "𠀋".repeat(19_999) + "a",
      mixed: Array.from({ length: 20_000 }, (_, i) => ["a", "é", "漢", "🧠", "ب"][i % 5]).join(""),
    };
    const { sequenceId } = await addThought(kv, LIMITS, step(1, { thought: texts.emoji }));
    await addThought(kv, LIMITS, step(2, { sequenceId, thought: texts.cjk }));
    await addThought(kv, LIMITS, step(3, { sequenceId, thought: texts.astralCjk }));
    await addThought(kv, LIMITS, step(4, { sequenceId, thought: texts.mixed }));
    const stored = (await kv.get<ThoughtRecord>(thoughtKey(sequenceId, 1))).value!;
    assert.equal(stored.text, undefined, "40,000 code units go to chunk keys");
    assert.equal(stored.parts, 2);
    assert.equal((await kv.get<string>(thoughtPartKey(sequenceId, 1, 1))).value?.length, 20_000);
    const cjk = (await kv.get<ThoughtRecord>(thoughtKey(sequenceId, 2))).value!;
    assert.equal(cjk.text, texts.cjk, "BMP text fits inline");

    const page = await getHistory(kv, LIMITS, sequenceId, { maxCharacters: 250_000 });
    assert.deepEqual(page.thoughts.map((t) => t.thought), Object.values(texts));
    assert.deepEqual(page.thoughts.map((t) => t.characters), [20_000, 20_000, 20_000, 20_000]);
    assert.ok(page.thoughts.every((t) => !t.truncated));
  });
});

Deno.test("splitText() never cuts a surrogate pair", () => {
  const text = "a" + "😀".repeat(15_000);
  const parts = splitText(text);
  assert.equal(parts.join(""), text);
  for (const part of parts) {
    assert.ok(part.length <= 20_000);
    assert.ok(!/[\uD800-\uDBFF]$/.test(part), "no part ends with a high surrogate");
    assert.ok(!/^[\uDC00-\uDFFF]/.test(part), "no part starts with a low surrogate");
  }
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

Deno.test("getHistory() keeps pages within maxCharacters and always advances", async () => {
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
    assert.deepEqual(pages.map((p) => p.map((t) => t.index)), [[1, 2], [3], [4, 5]]);
    const big = pages[1][0];
    assert.equal(big.truncated, true);
    assert.equal(big.thought.length, 100);
    assert.equal(big.characters, 500);
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
    assert.equal(left.length, 4);
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

Deno.test("every error code has a kind", () => {
  for (const [code, kind] of Object.entries(THINKING_ERRORS)) {
    assert.match(code, /^[A-Z_]+$/);
    assert.ok(["invalid", "not_found", "too_large", "full", "busy"].includes(kind));
  }
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
