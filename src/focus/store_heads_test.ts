import assert from "node:assert/strict";
import { DEFAULT_FOCUS_LIMITS } from "./settings.ts";
import { setNorthStar } from "./store.ts";
import { SharedHeadReads } from "./store_heads.ts";
import { withKv } from "../../tests/support/kv.ts";

/**
 * `kv` whose reads each start at once but answer only when `release()` is called, so that a
 * test can arrive while a read is running; `reads()` counts them.
 */
function heldReads(kv: Deno.Kv) {
  const gate = Promise.withResolvers<void>();
  let reads = 0;
  const held = {
    get: async (key: Deno.KvKey) => {
      reads++;
      const entry = await kv.get(key);
      await gate.promise;
      return entry;
    },
  } as unknown as Deno.Kv;
  return { kv: held, release: () => gate.resolve(), reads: () => reads };
}

Deno.test("calls arriving while a project read runs share the next read, which sees every write before them", () =>
  withKv(async (kv) => {
    const limits = DEFAULT_FOCUS_LIMITS;
    const heads = new SharedHeadReads();
    const held = heldReads(kv);
    await setNorthStar(kv, limits, "p", "first");
    const running = heads.read(held.kv, "p");
    // Let the running read take its snapshot, then write: calls made from now on must see it.
    await new Promise((resolve) => setTimeout(resolve, 10));
    await setNorthStar(kv, limits, "p", "second");
    const later = [heads.read(held.kv, "p"), heads.read(held.kv, "p"), heads.read(held.kv, "p")];
    held.release();
    assert.equal((await running).value?.northStar, "first");
    const answers = await Promise.all(later);
    const current = await kv.get(["project", "p"]);
    for (const answer of answers) assert.equal(answer.versionstamp, current.versionstamp);
    assert.equal(held.reads(), 2, "one read for the three calls that arrived meanwhile");
    // Nothing running: a call reads at once, and alone.
    assert.equal((await heads.read(held.kv, "p")).value?.northStar, "second");
    assert.equal(held.reads(), 3);
  }));

Deno.test("a failed project read fails the calls sharing it, and the next call reads again", () =>
  withKv(async (kv) => {
    const heads = new SharedHeadReads();
    let fail = true;
    const flaky = {
      get: (key: Deno.KvKey) => fail ? Promise.reject(new Error("disk gone")) : kv.get(key),
    } as unknown as Deno.Kv;
    const first = heads.read(flaky, "p");
    const second = heads.read(flaky, "p");
    await assert.rejects(first, /disk gone/);
    await assert.rejects(second, /disk gone/);
    fail = false;
    assert.equal((await heads.read(flaky, "p")).versionstamp, null);
  }));
