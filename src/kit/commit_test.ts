import assert from "node:assert/strict";
import { countCommits, withKv } from "../../tests/support/kv.ts";
import { atomic, commitWithRetry, StaleRead } from "./commit.ts";

Deno.test("commitWithRetry() retries a check that failed because another writer won", async () => {
  await withKv(async (kv) => {
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
  });
});

Deno.test("commitWithRetry() returns without writing when the attempt has no op", async () => {
  await withKv(async (kv) => {
    assert.equal(
      await commitWithRetry(() => Promise.resolve({ value: "nothing to do" })),
      "nothing to do",
    );
    assert.equal((await Array.fromAsync(kv.list({ prefix: [] }))).length, 0);
  });
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

Deno.test("commitWithRetry() lands every one of concurrent writers of one key, each lost check tried again", async () => {
  await withKv(async (kv) => {
    await kv.set(["n"], 0);
    const commits = countCommits(kv);
    const increment = () =>
      commitWithRetry(async () => {
        const current = await kv.get<number>(["n"]);
        return { op: kv.atomic().check(current).set(["n"], current.value! + 1), value: undefined };
      });
    await Promise.all(Array.from({ length: 30 }, increment));
    assert.equal((await kv.get(["n"])).value, 30);
    // All 30 read the first value at once: every one but the first lost a check at least once.
    assert.ok(commits.failed() >= 29, `${commits.failed()} lost checks`);
  });
});

Deno.test("atomic(kv) can be committed again after a failed check (commitOnce's retry)", async () => {
  await withKv(async (kv) => {
    await kv.set(["k"], 1);
    const op = atomic(kv).check({ key: ["k"], versionstamp: null }).set(["j"], 1);
    assert.equal((await op.commit()).ok, false);
    await kv.delete(["k"]);
    assert.equal((await op.commit()).ok, true);
    assert.equal((await kv.get(["j"])).value, 1);
  });
});

Deno.test("atomic(kv): concurrent writes each commit on their own, a failed check fails only its own", async () => {
  await withKv(async (kv) => {
    await kv.set(["stale"], 1);
    const old = await kv.get(["stale"]);
    await kv.set(["stale"], 2);
    const results = await Promise.all([
      atomic(kv).set(["x"], 1).commit(),
      atomic(kv).check(old).set(["y"], 1).commit(),
      atomic(kv).sum(["count"], 2n).set(["z"], 1).commit(),
    ]);
    assert.deepEqual(results.map((r) => r.ok), [true, false, true]);
    assert.equal((await kv.get(["y"])).value, null);
    assert.equal((await kv.get<Deno.KvU64>(["count"])).value?.value, 2n);
    // No write shares another's commit (group commit is gone): each lands with its own stamp.
    const spread = await Promise.all(
      Array.from({ length: 16 }, (_, i) => atomic(kv).set(["n", i], i).commit()),
    );
    const stamps = spread.flatMap((r) => r.ok ? [r.versionstamp] : []);
    assert.equal(new Set(stamps).size, 16);
  });
});
