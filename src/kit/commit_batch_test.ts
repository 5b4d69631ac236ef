import assert from "node:assert/strict";
import { withKv } from "../../tests/support/kv.ts";
import { atomic, type BatchAttempt, commitBatched, commitWithRetry } from "./commit.ts";
import { AppError } from "./errors.ts";

/** Appends numbers to a list under ["list"]; odd numbers are refused alone, 13 fails its batch. */
function append(kv: Deno.Kv, n: number, batches: number[][]): Promise<number> {
  return commitBatched<number, number>(
    { kv, key: ["list"] },
    n,
    async (items): Promise<BatchAttempt<number>> => {
      if (items.includes(13)) throw new AppError("invalid", "13 spoils its batch");
      batches.push([...items]);
      const entry = await kv.get<number[]>(["list"]);
      const list = [...entry.value ?? []];
      const value = items.map((i) => {
        if (i % 2 === 1) return { error: new AppError("invalid", `${i} is odd`) };
        list.push(i);
        return { value: list.length };
      });
      return { op: atomic(kv).check(entry).set(["list"], list), value };
    },
    (batch) => batch.length < 4,
  );
}

Deno.test("writes waiting on one key go in batches, in order, each with its own outcome", async () => {
  await withKv(async (kv) => {
    const batches: number[][] = [];
    const results = await Promise.allSettled(
      [0, 2, 4, 5, 6, 8, 10, 12].map((n) => append(kv, n, batches)),
    );
    assert.deepEqual(batches, [[0], [2, 4, 5, 6], [8, 10, 12]]);
    assert.deepEqual(
      results.map((r) => r.status === "fulfilled" ? r.value : String(r.reason.message)),
      [1, 2, 3, "5 is odd", 4, 5, 6, 7],
    );
    assert.deepEqual((await kv.get(["list"])).value, [0, 2, 4, 6, 8, 10, 12]);
  });
});

Deno.test("a batch that throws fails every write in it, and none after it", async () => {
  await withKv(async (kv) => {
    const batches: number[][] = [];
    const results = await Promise.allSettled(
      [0, 2, 13, 4, 6, 8, 10].map((n) => append(kv, n, batches)),
    );
    assert.deepEqual(
      results.map((r) => r.status === "fulfilled" ? r.value : String(r.reason.message)),
      [
        1,
        "13 spoils its batch",
        "13 spoils its batch",
        "13 spoils its batch",
        "13 spoils its batch",
        2,
        3,
      ],
    );
    assert.deepEqual((await kv.get(["list"])).value, [0, 8, 10]);
  });
});

Deno.test("a batch whose check fails is tried again with the same writes", async () => {
  await withKv(async (kv) => {
    let tries = 0;
    const result = await commitBatched<string, string>(
      { kv, key: ["k"] },
      "x",
      async (items, tried) => {
        tries++;
        const entry = await kv.get(["k"]);
        // Another process writes between the read and the first commit.
        if (tried === 0) await kv.set(["k"], "elsewhere");
        return { op: atomic(kv).check(entry).set(["k"], items[0]), value: [{ value: "ok" }] };
      },
      () => true,
    );
    assert.equal(result, "ok");
    assert.equal(tries, 2);
    assert.equal((await kv.get(["k"])).value, "x");
  });
});

/** A bus that records what it is told. */
function recordingBus(): {
  told: { topics: string[]; versionstamp: string }[];
  committed(topics: Iterable<string>, versionstamp: string): void;
} {
  const told: { topics: string[]; versionstamp: string }[] = [];
  return {
    told,
    committed: (topics, versionstamp) => told.push({ topics: [...topics], versionstamp }),
  };
}

Deno.test("an attempt's notices are told once, after its commit lands, never for a failed try", async () => {
  await withKv(async (kv) => {
    const bus = recordingBus();
    let tries = 0;
    let landedAt = "";
    await commitWithRetry(async () => {
      const entry = await kv.get(["n"]);
      // The first try loses its check to another writer: nothing may be told for it.
      if (tries++ === 0) await kv.set(["n"], "other");
      return {
        op: atomic(kv).check(entry).set(["n"], "mine"),
        value: undefined,
        tell: { bus, topics: ["a"] },
        committed: (vs) => landedAt = vs,
      };
    });
    assert.equal(tries, 2);
    assert.deepEqual(bus.told, [{ topics: ["a"], versionstamp: landedAt }]);
    assert.equal((await kv.get(["n"])).versionstamp, landedAt);
  });
});

Deno.test("a batch's notices are told once for the batch, not once per write", async () => {
  await withKv(async (kv) => {
    const bus = recordingBus();
    const post = (n: number) =>
      commitBatched<number, number>(
        { kv, key: ["posts"] },
        n,
        async (items) => {
          const entry = await kv.get<number[]>(["posts"]);
          const list = [...entry.value ?? [], ...items];
          return {
            op: atomic(kv).check(entry).set(["posts"], list),
            value: items.map((i) => ({ value: i })),
            tell: { bus, topics: ["posts"] },
          };
        },
        () => true,
      );
    assert.deepEqual(await Promise.all([1, 2, 3].map(post)), [1, 2, 3]);
    // The first post goes alone; the two that waited behind it share one turn and one notice.
    assert.equal(bus.told.length, 2);
    assert.deepEqual(bus.told.map((t) => t.topics), [["posts"], ["posts"]]);
    assert.deepEqual((await kv.get(["posts"])).value, [1, 2, 3]);
  });
});
