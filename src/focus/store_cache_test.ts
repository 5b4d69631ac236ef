import assert from "node:assert/strict";
import { DEFAULT_FOCUS_LIMITS } from "./settings.ts";
import { FocusStateCache } from "./store_cache.ts";
import { addTask, addTaskWithState, completeTask, setFocus, setNorthStar } from "./store.ts";
import { getState } from "./store_state.ts";
import { countCommits, withKv } from "../../tests/support/kv.ts";

const limits = DEFAULT_FOCUS_LIMITS;

Deno.test("getState() with a cache serves a state only while the project record is unchanged", () =>
  withKv(async (kv) => {
    const cache = new FocusStateCache();
    await setNorthStar(kv, limits, "p1", "Ship it");
    const first = await getState(kv, limits, "p1", cache);
    assert.equal(await getState(kv, limits, "p1", cache), first, "the same version is cached");
    // Writes that bypass this cache (another process, another server) are seen at once.
    const writes = [
      () => setFocus(kv, limits, "p1", "Docs"),
      () => addTask(kv, limits, "p1", "tidy", "cleanup"),
      () => setNorthStar(kv, limits, "p1", "Ship it well"),
    ];
    let previous = first;
    for (const write of writes) {
      await write();
      const fresh = await getState(kv, limits, "p1", cache);
      assert.notEqual(fresh, previous);
      assert.deepEqual(fresh, await getState(kv, limits, "p1"));
      previous = fresh;
    }
    const [task] = previous.followUps;
    await completeTask(kv, task.id);
    assert.deepEqual((await getState(kv, limits, "p1", cache)).followUps, []);
    // A state a write produced is the next read's answer, without reading the follow-ups.
    const { state } = await addTaskWithState(kv, limits, "p1", "note", "record", cache);
    assert.equal(await getState(kv, limits, "p1", cache), state);
    // A project that does not exist has no version to check, so it is never cached.
    const none = await getState(kv, limits, "unknown", cache);
    assert.notEqual(await getState(kv, limits, "unknown", cache), none);
  }));

Deno.test("FocusStateCache drops the least recently used states past its budget", () => {
  const cache = new FocusStateCache();
  const state = (projectId: string, bodyLength: number) => ({
    projectId,
    project: null,
    focus: null,
    followUps: Array.from({ length: 500 }, (_, i) => ({
      id: `${i}`,
      projectId,
      body: "x".repeat(bodyLength),
      kind: "cleanup" as const,
      demoted: true,
      status: "open" as const,
      createdAt: "",
    })),
  });
  const states = Array.from({ length: 4 }, (_, i) => state(`p${i}`, 2000)); // ~1 M units each
  states.forEach((s, i) => cache.put(`v${i}`, s));
  assert.equal(cache.get("p0", "v0"), undefined, "the oldest went to make room");
  assert.equal(cache.get("p3", "v3"), states[3]);
  assert.equal(cache.get("p3", "v2"), undefined, "another version is a miss");
  cache.put("v9", state("huge", 9000)); // over the whole budget alone: not kept
  assert.equal(cache.get("huge", "v9"), undefined);
  assert.equal(cache.get("p3", "v3"), states[3]);
});

Deno.test("concurrent addTaskWithState() calls on one project take turns and go together", () =>
  withKv(async (kv) => {
    const cache = new FocusStateCache();
    await addTaskWithState(kv, limits, "p1", "warm", "main", cache);
    const commits = countCommits(kv);
    await Promise.all(
      Array.from(
        { length: 20 },
        (_, i) => addTaskWithState(kv, limits, "p1", `t${i}`, "main", cache),
      ),
    );
    assert.equal(commits.failed(), 0, "no write started from a state an earlier one had replaced");
    assert.ok(commits.count() < 20, "writes waiting for the project's turn go together");
  }));

Deno.test("getState() calls that find the same newer version read the state once, and see the write", () =>
  withKv(async (kv) => {
    const cache = new FocusStateCache();
    await setNorthStar(kv, limits, "p1", "Ship it");
    for (let i = 0; i < 3; i++) await addTask(kv, limits, "p1", `tidy ${i}`, "cleanup");
    await getState(kv, limits, "p1", cache);
    // Full reads are the ones that read the focus (the project record alone is the version check).
    let fullReads = 0;
    const getMany = kv.getMany.bind(kv);
    kv.getMany = ((keys: Deno.KvKey[], options?: { consistency?: Deno.KvConsistencyLevel }) => {
      if (keys.some((key) => key[0] === "focus")) fullReads++;
      return getMany(keys, options);
    }) as typeof kv.getMany;
    // A write this cache did not see (another process, say): every poller finds a newer version.
    await setFocus(kv, limits, "p1", "Docs");
    const states = await Promise.all(
      Array.from({ length: 8 }, () => getState(kv, limits, "p1", cache)),
    );
    assert.equal(fullReads, 1, "one full read for the eight calls");
    for (const state of states) {
      assert.equal(state, states[0]);
      assert.equal(state.focus?.statement, "Docs");
      assert.equal(state.followUps.length, 3);
    }
    await addTask(kv, limits, "p1", "tidy 3", "cleanup");
    fullReads = 0;
    assert.equal((await getState(kv, limits, "p1", cache)).followUps.length, 4);
    assert.equal(fullReads, 1, "a later version is read again");
  }));
