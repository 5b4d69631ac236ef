import assert from "node:assert/strict";
import { addThought } from "./store_write.ts";
import { allKeys, LIMITS, rejectsWith, step, withKv } from "../../tests/support/thinking_store.ts";

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

Deno.test("addThought() refuses branch ids KV would fold into one (lone surrogates, blank)", async () => {
  await withKv(async (kv) => {
    await addThought(kv, LIMITS, step(1));
    for (const branchId of ["\uD800", "\uDBFF", "a\uDC00", "  "]) {
      await rejectsWith(
        addThought(kv, LIMITS, step(2, { branchFromThought: 1, branchId })),
        "BRANCH_ID_INVALID",
      );
    }
    await rejectsWith(
      addThought(
        kv,
        LIMITS,
        step(2, { branchFromThought: 1, branchId: "b", branchFromBranchId: "\uD800" }),
      ),
      "BRANCH_ID_INVALID",
    );
  });
});

Deno.test("addThought() refuses a thought with a lone surrogate, writing nothing", async () => {
  await withKv(async (kv) => {
    for (const thought of ["half \uD800 pair", "\uDFFF", "end \uDBFF"]) {
      await rejectsWith(addThought(kv, LIMITS, step(1, { thought })), "THOUGHT_INVALID");
    }
    assert.deepEqual(await allKeys(kv), [], "nothing was written");
  });
});
