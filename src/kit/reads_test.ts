import assert from "node:assert/strict";
import { withKv } from "../../tests/support/kv.ts";
import { listAll, listPage, readKey } from "./reads.ts";
import { retryLocked } from "./retry.ts";

Deno.test("listPage() walks both directions without skipping or repeating", async () => {
  await withKv(async (kv) => {
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
  });
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
  await withKv(async (kv) => {
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
  });
});
