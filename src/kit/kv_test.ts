import assert from "node:assert/strict";
import {
  commitWithRetry,
  inKeyQueue,
  isUlid,
  listAll,
  listPage,
  randomToken,
  readKey,
  retryLocked,
  StaleRead,
  ulid,
} from "./kv.ts";

Deno.test("ulid() is a sortable ULID, monotonic within one millisecond", () => {
  const ids = Array.from({ length: 1000 }, () => ulid(1_700_000_000_000));
  assert.ok(ids.every(isUlid));
  assert.deepEqual([...ids].sort(), ids);
  assert.equal(new Set(ids).size, ids.length);
  assert.ok(ulid(1_700_000_000_001) > ids.at(-1)!);
});

Deno.test("randomToken() gives URL-safe text of the requested randomness", () => {
  const token = randomToken(32);
  assert.match(token, /^[A-Za-z0-9_-]{43}$/);
  assert.notEqual(token, randomToken(32));
});

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

Deno.test("listPage() walks both directions without skipping or repeating", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    for (let i = 0; i < 23; i++) await kv.set(["x", i], i);
    for (const reverse of [false, true]) {
      const seen: number[] = [];
      let cursor: string | undefined;
      for (;;) {
        const page = await listPage<number>(kv, ["x"], { limit: 5, cursor, reverse });
        seen.push(...page.items.map((e) => e.value));
        if (!page.hasMore) {
          assert.equal(page.nextCursor, null);
          break;
        }
        cursor = page.nextCursor!;
      }
      const expected = Array.from({ length: 23 }, (_, i) => i);
      assert.deepEqual(seen, reverse ? expected.reverse() : expected);
    }
  } finally {
    kv.close();
  }
});

Deno.test("retryLocked() retries while another process holds the KV file, and only then", async () => {
  let calls = 0;
  const value = await retryLocked(() => {
    calls++;
    if (calls < 4) return Promise.reject(new Error("database is locked"));
    return Promise.resolve("done");
  });
  assert.equal(value, "done");
  assert.equal(calls, 4);
  let other = 0;
  await assert.rejects(
    () =>
      retryLocked(() => {
        other++;
        return Promise.reject(new Error("disk full"));
      }),
    /disk full/,
  );
  assert.equal(other, 1, "other errors are not retried");
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

/** A real KV whose `list` iterators and `get`s throw `database is locked` at chosen moments. */
function lockingKv(kv: Deno.Kv, failListAfter: number[], failGets: number): Deno.Kv {
  let gets = 0;
  return new Proxy(kv, {
    get(target, prop) {
      if (prop === "list") {
        return (selector: Deno.KvListSelector, options?: Deno.KvListOptions) => {
          const iter = target.list(selector, options);
          const failAt = failListAfter.shift();
          let yielded = 0;
          return {
            get cursor() {
              return iter.cursor;
            },
            async *[Symbol.asyncIterator]() {
              for await (const entry of iter) {
                if (yielded === failAt) throw new Error("database is locked");
                yielded++;
                yield entry;
              }
            },
          };
        };
      }
      if (prop === "get") {
        return (key: Deno.KvKey) =>
          gets++ < failGets ? Promise.reject(new Error("database is locked")) : target.get(key);
      }
      const value = Reflect.get(target, prop);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

Deno.test("listEntries() resumes after a locked read without skipping or repeating", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    for (let i = 0; i < 25; i++) await kv.set(["n", i], i);
    const all = await listAll<number>(lockingKv(kv, [3, 10], 0), { prefix: ["n"] });
    assert.deepEqual(all.map((e) => e.value), Array.from({ length: 25 }, (_, i) => i));
    const some = await listAll<number>(lockingKv(kv, [4], 0), { prefix: ["n"] }, { limit: 7 });
    assert.deepEqual(some.map((e) => e.value), [0, 1, 2, 3, 4, 5, 6]);
    const page = await listPage<number>(lockingKv(kv, [2], 0), ["n"], { limit: 5 });
    assert.deepEqual(page.items.map((e) => e.value), [0, 1, 2, 3, 4]);
    assert.equal(page.hasMore, true);
    assert.equal((await readKey<number>(lockingKv(kv, [], 2), ["n", 3])).value, 3);
    const back = await listAll<number>(lockingKv(kv, [5, 1], 0), { prefix: ["n"] }, {
      reverse: true,
    });
    assert.deepEqual(back.map((e) => e.value), Array.from({ length: 25 }, (_, i) => 24 - i));
    const ranged = await listAll<number>(lockingKv(kv, [2], 0), {
      prefix: ["n"],
      end: ["n", 9],
    });
    assert.deepEqual(ranged.map((e) => e.value), [0, 1, 2, 3, 4, 5, 6, 7, 8]);
    const backRanged = await listAll<number>(lockingKv(kv, [3], 0), {
      prefix: ["n"],
      start: ["n", 15],
    }, { reverse: true });
    assert.deepEqual(backRanged.map((e) => e.value), [24, 23, 22, 21, 20, 19, 18, 17, 16, 15]);
  } finally {
    kv.close();
  }
});
