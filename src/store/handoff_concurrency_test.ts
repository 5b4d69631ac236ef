import assert from "node:assert/strict";
import { appendHandoff } from "./handoff_append.ts";
import { clearHandoffs } from "./handoff_delete.ts";
import { assertConsistent, input, LIMITS } from "./handoff_fixtures.ts";
import { mergeHandoffs } from "./handoff_merge.ts";
import { saveHandoff } from "./handoff_save.ts";
import { StoreError } from "./kv.ts";

Deno.test("two KV handles on one file (two processes) never fail large writes with 'database is locked'", async () => {
  const dir = await Deno.makeTempDir();
  const first = await Deno.openKv(`${dir}/kv.sqlite`);
  const second = await Deno.openKv(`${dir}/kv.sqlite`);
  try {
    const big = "## User\n" + "ü".repeat(250_000); // 500 KB: staged before its record
    for (let i = 0; i < 4; i++) {
      await saveHandoff(first, LIMITS, input({ key: `k${i}`, conversation: big }));
    }
    const results = await Promise.allSettled(Array.from({ length: 30 }, (_, i) => {
      const kv = i % 2 ? second : first;
      if (i % 5 === 0) {
        // Too large once both sources hold `big`: refused after the sources were leased.
        return mergeHandoffs(kv, LIMITS, { keys: [`k${i % 4}`, `k${(i + 2) % 4}`] });
      }
      if (i % 3 === 0) return appendHandoff(kv, LIMITS, `k${i % 4}`, "x".repeat(200_000));
      return saveHandoff(kv, LIMITS, input({ key: `k${i % 6}`, conversation: big }));
    }));
    for (const r of results) {
      if (r.status === "rejected") {
        assert.ok(r.reason instanceof StoreError, `a plain failure escaped: ${r.reason}`);
      }
    }
    assert.deepEqual(
      await Array.fromAsync(first.list({ prefix: ["handoff_lease"] })),
      [],
      "every merge gave its leases back",
    );
    await clearHandoffs(first, LIMITS);
    await assertConsistent(first);
  } finally {
    first.close();
    second.close();
    await Deno.remove(dir, { recursive: true });
  }
});
