import assert from "node:assert/strict";
import { type HeapReading, IdleCollector } from "./idle_collect.ts";
import { loadConfig } from "./config.ts";

const MIB = 1024 * 1024;

/** A heap whose readings the test sets, and a collection that shrinks it to what is live. */
function heap(total: number, used: number) {
  const state = { heapTotal: total * MIB, heapUsed: used * MIB, live: used * MIB, collections: 0 };
  const read = (): HeapReading => ({ heapTotal: state.heapTotal, heapUsed: state.heapUsed });
  const collect = () => {
    state.collections++;
    state.heapUsed = state.live;
    state.heapTotal = state.live + 2 * MIB;
  };
  return { state, read, collect };
}

/** Seconds of load on `h`: the heap grown to 160 MiB, heapUsed moving 40 MiB each reading. */
function loader(h: ReturnType<typeof heap>, collector: IdleCollector) {
  let used = 60;
  return (seconds: number) => {
    for (let i = 0; i < seconds; i++) {
      used = used === 60 ? 100 : 60;
      h.state.heapTotal = 160 * MIB;
      h.state.heapUsed = used * MIB;
      assert.equal(collector.tick(), false, "never while requests allocate");
    }
  };
}

Deno.test("idle collect: collects once the heap grew and nothing allocated for the quiet readings", () => {
  const h = heap(30, 20);
  const collector = new IdleCollector({ growthBytes: 32 * MIB, quiet: 1 }, h.read, h.collect);
  // Busy: the heap grows and heapUsed moves between readings, so no collection.
  for (const [total, used] of [[60, 40], [100, 80], [140, 60], [140, 110]]) {
    h.state.heapTotal = total * MIB;
    h.state.heapUsed = used * MIB;
    assert.equal(collector.tick(), false);
  }
  // Idle: the same heapUsed as the reading before.
  assert.equal(collector.tick(), true);
  assert.equal(h.state.collections, 1);
  assert.equal(h.state.heapTotal, 22 * MIB);
  // Still idle, heap settled: never again until it grows by the setting once more.
  for (let i = 0; i < 5; i++) assert.equal(collector.tick(), false);
  assert.equal(h.state.collections, 1);
});

Deno.test("idle collect: background work after the load (0.5 MiB a second) counts as idle", () => {
  const h = heap(30, 20);
  const collector = new IdleCollector({ growthBytes: 32 * MIB }, h.read, h.collect);
  h.state.heapTotal = 140 * MIB;
  h.state.heapUsed = 90 * MIB;
  assert.equal(collector.tick(), false);
  h.state.heapUsed += MIB / 2;
  assert.equal(collector.tick(), false, "one quiet reading: maybe a pause between bursts");
  h.state.heapUsed += MIB / 2;
  assert.equal(collector.tick(), true);
});

Deno.test("idle collect: growth under the setting, or the setting 0, never collects", () => {
  const small = heap(30, 20);
  const collector = new IdleCollector({ growthBytes: 32 * MIB }, small.read, small.collect);
  small.state.heapTotal = 61 * MIB;
  for (let i = 0; i < 3; i++) assert.equal(collector.tick(), false);
  const off = heap(30, 20);
  const disabled = new IdleCollector({ growthBytes: 0 }, off.read, off.collect);
  off.state.heapTotal = 500 * MIB;
  for (let i = 0; i < 3; i++) assert.equal(disabled.tick(), false);
  assert.equal(small.state.collections + off.state.collections, 0);
});

Deno.test("idle collect: at most one collection per IDLE_COLLECT_SPACING busy readings", () => {
  const h = heap(30, 20);
  const collector = new IdleCollector(
    { growthBytes: 32 * MIB, spacing: 3, quiet: 1 },
    h.read,
    h.collect,
  );
  let used = 70;
  /** One second of load: the heap grown, heapUsed moving. */
  const busy = () => {
    used = used === 70 ? 90 : 70;
    h.state.heapTotal = 100 * MIB;
    h.state.heapUsed = used * MIB;
    return collector.tick();
  };
  assert.equal(busy(), false);
  assert.equal(collector.tick(), true);
  // A short burst (two busy readings), then idle: grown, but within the spacing, however long
  // the pause.
  assert.equal(busy(), false);
  assert.equal(busy(), false);
  for (let i = 0; i < 40; i++) assert.equal(collector.tick(), false);
  assert.equal(h.state.collections, 1);
  // One more busy reading completes the spacing: the next quiet reading collects.
  assert.equal(busy(), false);
  assert.equal(collector.tick(), true, "once the spacing has passed");
  assert.equal(h.state.collections, 2);
});

Deno.test("idle collect: two loads of ten seconds each are each followed by a collection", () => {
  // The bench `switches` shape: with the spacing counted in wall seconds (30), the second
  // load's collection was held back and RSS stayed at 239 MiB 5 s after it.
  const h = heap(30, 20);
  const collector = new IdleCollector({ growthBytes: 32 * MIB }, h.read, h.collect);
  const load = loader(h, collector);
  for (let n = 1; n <= 2; n++) {
    load(10);
    assert.equal(collector.tick(), false);
    assert.equal(collector.tick(), true, `the collection after load ${n}`);
  }
  assert.equal(h.state.collections, 2);
});

Deno.test("idle collect: a load of exactly IDLE_COLLECT_SPACING busy readings gets its collection; one shorter does not", () => {
  const h = heap(30, 20);
  // The default spacing (5): the `switches` group's loads of 5–7 s each get their collection.
  const collector = new IdleCollector({ growthBytes: 32 * MIB }, h.read, h.collect);
  const load = loader(h, collector);
  const quiet = () => [collector.tick(), collector.tick(), collector.tick()].some((c) => c);
  load(5);
  assert.equal(quiet(), true, "the first load");
  load(5);
  assert.equal(quiet(), true, "a load of exactly the spacing");
  load(4);
  assert.equal(quiet(), false, "a load one reading short shares the last collection");
  assert.equal(h.state.collections, 2);
  load(1);
  assert.equal(quiet(), true, "the next busy reading completes the spacing");
});

Deno.test("idle collect: a pause of one reading between bursts is not idle; the load's end is", () => {
  // The bench `http` group's shape: three bursts a second apart, then the load ends. A
  // collection in a pause would hold back (by the spacing) the one the end of the load needs.
  const h = heap(30, 20);
  const collector = new IdleCollector({ growthBytes: 32 * MIB }, h.read, h.collect);
  let used = 20;
  const busy = (seconds: number) => {
    for (let i = 0; i < seconds; i++) {
      used += 40;
      h.state.heapTotal = Math.max(h.state.heapTotal, 160 * MIB);
      h.state.heapUsed = (used % 120 + 20) * MIB;
      assert.equal(collector.tick(), false, "never while requests allocate");
    }
  };
  for (let burst = 0; burst < 3; burst++) {
    busy(10);
    assert.equal(collector.tick(), false, "a pause of one quiet reading");
  }
  assert.equal(h.state.collections, 0);
  assert.equal(collector.tick(), true, "the second quiet reading after the load");
  assert.equal(h.state.collections, 1);
});

Deno.test("idle collect: a heap V8 shrank itself is where growth is measured from", () => {
  const h = heap(100, 20);
  const collector = new IdleCollector({ growthBytes: 32 * MIB, quiet: 1 }, h.read, h.collect);
  h.state.heapTotal = 40 * MIB; // V8's reducer ran
  assert.equal(collector.tick(), false);
  h.state.heapTotal = 80 * MIB; // grew 40 MiB from there, idle
  assert.equal(collector.tick(), true);
});

Deno.test("idle collect: the real heap's garbage is given back", () => {
  const collector = new IdleCollector({ growthBytes: 16 * MIB });
  let keep: unknown[] | undefined = [];
  for (let i = 0; i < 400_000; i++) keep.push({ i, text: `garbage ${i}`.repeat(4) });
  keep = undefined;
  const before = Deno.memoryUsage().heapTotal;
  // The first reading after the allocation sees heapUsed move; the next two are quiet.
  let collected = false;
  for (let i = 0; i < 4 && !collected; i++) collected = collector.tick();
  assert.equal(keep, undefined);
  assert.ok(collected, "an idle heap that grew by the setting is collected");
  assert.ok(
    Deno.memoryUsage().heapTotal < before - 16 * MIB,
    `heapTotal ${before} fell by more than 16 MiB`,
  );
});

Deno.test("IDLE_COLLECT_MIB: default 32, 0 turns it off, other values refused naming it", () => {
  assert.equal(loadConfig(new Map()).idleCollectMiB, 32);
  assert.equal(loadConfig(new Map([["IDLE_COLLECT_MIB", "0"]])).idleCollectMiB, 0);
  assert.throws(
    () => loadConfig(new Map([["IDLE_COLLECT_MIB", "-1"]])),
    /IDLE_COLLECT_MIB must be a whole number from 0 to 65536/,
  );
});
