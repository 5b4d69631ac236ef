import assert from "node:assert/strict";
import { withKv } from "../../tests/support/kv.ts";
import { atomic } from "./commit.ts";
import { roughSize } from "./group_commit.ts";
import { keyText } from "./key_text.ts";

Deno.test("concurrent writes to different keys share commits and all land", async () => {
  await withKv(async (kv) => {
    const results = await Promise.all(
      Array.from(
        { length: 16 },
        (_, i) =>
          atomic(kv).check({ key: ["n", i], versionstamp: null }).set(["n", i], i).set(["m", i], -i)
            .commit(),
      ),
    );
    assert.ok(results.every((r) => r.ok));
    const stamps = new Set(results.map((r) => (r as Deno.KvCommitResult).versionstamp));
    // The first goes alone; the fifteen waiting behind it go as one.
    assert.equal(stamps.size, 2);
    for (let i = 0; i < 16; i++) {
      assert.equal((await kv.get(["n", i])).value, i);
      assert.equal((await kv.get(["m", i])).value, -i);
      assert.equal((await kv.get(["n", i])).versionstamp, results[i].ok && results[i].versionstamp);
    }
  });
});

Deno.test("two waiting writes of one key are never merged: the second one's check fails", async () => {
  await withKv(async (kv) => {
    const busy = atomic(kv).set(["other"], 0).commit();
    const a = atomic(kv).check({ key: ["k"], versionstamp: null }).set(["k"], "a").commit();
    const b = atomic(kv).check({ key: ["k"], versionstamp: null }).set(["k"], "b").commit();
    const [, ra, rb] = await Promise.all([busy, a, b]);
    assert.equal(ra.ok, true);
    assert.equal(rb.ok, false);
    assert.equal((await kv.get(["k"])).value, "a");
  });
});

Deno.test("a write that reads a key another waiting write changes is not merged with it", async () => {
  await withKv(async (kv) => {
    await kv.set(["k"], 1);
    const start = await kv.get<number>(["k"]);
    const busy = atomic(kv).set(["other"], 0).commit();
    const writer = atomic(kv).check(start).set(["k"], 2).commit();
    const reader = atomic(kv).check(start).set(["derived"], start.value! * 10).commit();
    const [, w, r] = await Promise.all([busy, writer, reader]);
    assert.equal(w.ok, true);
    // Serially, the reader's check sees the writer's change and fails.
    assert.equal(r.ok, false);
    assert.equal((await kv.get(["derived"])).value, null);
  });
});

Deno.test("a failed check in a merged batch fails only its own write", async () => {
  await withKv(async (kv) => {
    await kv.set(["stale"], 1);
    const old = await kv.get(["stale"]);
    await kv.set(["stale"], 2);
    const busy = atomic(kv).set(["other"], 0).commit();
    const ok1 = atomic(kv).set(["x"], 1).commit();
    const bad = atomic(kv).check(old).set(["y"], 1).commit();
    const ok2 = atomic(kv).set(["z"], 1).commit();
    const [, r1, rBad, r2] = await Promise.all([busy, ok1, bad, ok2]);
    assert.deepEqual([r1.ok, rBad.ok, r2.ok], [true, false, true]);
    assert.equal((await kv.get(["y"])).value, null);
    assert.equal((await kv.get(["x"])).value, 1);
    assert.equal((await kv.get(["z"])).value, 1);
  });
});

Deno.test("a write KV refuses throws to its own caller only", async () => {
  await withKv(async (kv) => {
    const busy = atomic(kv).set(["other"], 0).commit();
    const good = atomic(kv).set(["good"], 1).commit();
    const bad = atomic(kv).set(["bad"], () => {}).commit();
    const [, r] = await Promise.all([busy, good, bad.catch((e) => e)]);
    assert.equal(r.ok, true);
    assert.ok(await bad.then(() => false, () => true));
    assert.equal((await kv.get(["good"])).value, 1);
    assert.equal((await kv.get(["bad"])).value, null);
  });
});

Deno.test("more writes than one atomic takes still all land, in batches within KV's limits", async () => {
  await withKv(async (kv) => {
    // 300 writes of two checks each: at most 50 fit the 100 checks of one atomic.
    const results = await Promise.all(
      Array.from(
        { length: 300 },
        (_, i) =>
          atomic(kv).check({ key: ["a", i], versionstamp: null }, {
            key: ["b", i],
            versionstamp: null,
          })
            .set(["a", i], "x".repeat(1000)).commit(),
      ),
    );
    assert.ok(results.every((r) => r.ok));
    const stamps = new Set(results.map((r) => (r as Deno.KvCommitResult).versionstamp));
    assert.ok(stamps.size >= 7 && stamps.size < 300, `${stamps.size} commits`);
    assert.equal((await Array.fromAsync(kv.list({ prefix: ["a"] }))).length, 300);
  });
});

Deno.test("a large write goes alone and sums, deletes and expiries carry over", async () => {
  await withKv(async (kv) => {
    await kv.set(["gone"], 1);
    const busy = atomic(kv).set(["other"], 0).commit();
    const big = atomic(kv).set(["big"], "x".repeat(60_000)).set(["big2"], "y".repeat(60_000))
      .commit();
    const small = atomic(kv).sum(["count"], 2n).delete(["gone"]).set(["temp"], 1, {
      expireIn: 60_000,
    }).commit();
    const results = await Promise.all([busy, big, small]);
    assert.ok(results.every((r) => r.ok));
    const [b, s] = [results[1], results[2]] as Deno.KvCommitResult[];
    assert.notEqual(b.versionstamp, s.versionstamp);
    assert.equal((await kv.get<Deno.KvU64>(["count"])).value?.value, 2n);
    assert.equal((await kv.get(["gone"])).value, null);
    assert.equal((await kv.get(["temp"])).value, 1);
  });
});

Deno.test("an operation can be committed again after a failed check", async () => {
  await withKv(async (kv) => {
    await kv.set(["k"], 1);
    const op = atomic(kv).check({ key: ["k"], versionstamp: null }).set(["j"], 1);
    assert.equal((await op.commit()).ok, false);
    await kv.delete(["k"]);
    assert.equal((await op.commit()).ok, true);
  });
});

Deno.test("keyText tells keys apart that a naive join would not", () => {
  const keys: Deno.KvKey[] = [
    ["a", "b"],
    ["a\u0000b"],
    ["ab"],
    [1],
    ["1"],
    [1n],
    [true],
    ["true"],
    [new Uint8Array([1, 2])],
    ["1,2"],
  ];
  assert.equal(new Set(keys.map(keyText)).size, keys.length);
  assert.equal(keyText(["a", 1]), keyText(["a", 1]));
});

Deno.test("roughSize is an upper estimate and stops at the cap", () => {
  assert.ok(roughSize("abc", 1000) >= 6);
  assert.ok(roughSize({ a: "x".repeat(100), b: [1, 2, 3] }, 10_000) >= 200);
  assert.ok(roughSize(new Uint8Array(5000), 10_000) >= 5000);
  const huge = Array.from({ length: 100_000 }, () => "long text");
  assert.ok(roughSize(huge, 1000) > 1000);
});

Deno.test("a lone write KV refuses does not hold up the writes after it", async () => {
  await withKv(async (kv) => {
    const badKey = [{}] as unknown as Deno.KvKey;
    await assert.rejects(atomic(kv).set(badKey, 1).commit());
    await assert.rejects(atomic(kv).set(["f"], () => {}).commit());
    const after = await atomic(kv).set(["after"], 1).commit();
    assert.equal(after.ok, true);
    assert.equal((await kv.get(["after"])).value, 1);
  });
});
