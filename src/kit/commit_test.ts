import assert from "node:assert/strict";
import { commitWithRetry, inKeyQueue, StaleRead } from "./commit.ts";

Deno.test("commitWithRetry() retries a check that failed because another writer won", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    await kv.set(["n"], 0);
    const increment = () =>
      commitWithRetry(async () => {
        const current = await kv.get<number>(["n"]);
        const op = kv.atomic().check(current).set(["n"], current.value! + 1);
        return { op, value: current.value! + 1 };
      });
    const results = await Promise.all(Array.from({ length: 50 }, increment));
    assert.equal((await kv.get(["n"])).value, 50);
    assert.deepEqual(
      [...results].sort((a, b) => a - b),
      Array.from({ length: 50 }, (_, i) => i + 1),
    );
  } finally {
    kv.close();
  }
});

Deno.test("commitWithRetry() returns without writing when the attempt has no op", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    assert.equal(
      await commitWithRetry(() => Promise.resolve({ value: "nothing to do" })),
      "nothing to do",
    );
    assert.equal((await Array.fromAsync(kv.list({ prefix: [] }))).length, 0);
  } finally {
    kv.close();
  }
});
Deno.test("commitWithRetry() runs the attempt again when it reports a stale read", async () => {
  let rounds = 0;
  const value = await commitWithRetry(() => {
    rounds++;
    if (rounds < 3) return Promise.reject(new StaleRead("moved"));
    return Promise.resolve({ value: rounds });
  });
  assert.equal(value, 3);
});

Deno.test("inKeyQueue() runs work on one key in turn, past failures, and other keys alongside", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const log: string[] = [];
    const gate = Promise.withResolvers<void>();
    const slow = inKeyQueue(kv, ["hot", 1], async () => {
      log.push("a start");
      await gate.promise;
      log.push("a end");
      throw new Error("a failed");
    });
    const next = inKeyQueue(kv, ["hot", 1], () => {
      log.push("b");
      return Promise.resolve("b done");
    });
    const other = inKeyQueue(kv, ["hot", "1"], () => {
      log.push("other key");
      return Promise.resolve();
    });
    await other;
    assert.deepEqual(log, ["a start", "other key"]);
    gate.resolve();
    await assert.rejects(slow, /a failed/);
    assert.equal(await next, "b done");
    assert.deepEqual(log, ["a start", "other key", "a end", "b"]);
  } finally {
    kv.close();
  }
});

Deno.test("commitWithRetry() with a queue commits concurrent writers of one key without conflicts", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    await kv.set(["n"], 0);
    let failed = 0;
    const increment = () =>
      commitWithRetry(async () => {
        const current = await kv.get<number>(["n"]);
        const op = kv.atomic().check(current).set(["n"], current.value! + 1);
        const commit = op.commit.bind(op);
        op.commit = async () => {
          const res = await commit();
          if (!res.ok) failed++;
          return res;
        };
        return { op, value: undefined };
      }, { kv, key: ["n"] });
    await Promise.all(Array.from({ length: 30 }, increment));
    assert.equal((await kv.get(["n"])).value, 30);
    assert.equal(failed, 0);
  } finally {
    kv.close();
  }
});
