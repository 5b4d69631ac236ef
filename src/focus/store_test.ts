import assert from "node:assert/strict";
import { SEARCH_PREFIX } from "../kit/search_source.ts";
import { DEFAULT_FOCUS_LIMITS } from "./settings.ts";
import { addTask, addTaskWithState, completeTask, setFocus, setNorthStar } from "./store.ts";
import { getState, listProjects, projectIdsStartingWith } from "./store_state.ts";
import { migrateLegacyFollowUps } from "./store_migrate.ts";
import {
  focusKey,
  followUpBlockKey,
  followUpBlockPrefix,
  legacyFollowUpKey,
  legacyFollowUpPrefix,
  type Project,
  projectKey,
  type Task,
  taskKey,
  taskProjectKey,
} from "./store_keys.ts";
import { AppError } from "../kit/errors.ts";
import { countCommits, withKv } from "../../tests/support/kv.ts";

const limits = DEFAULT_FOCUS_LIMITS;

/** Every key and value in KV, to prove a refused write left nothing behind. */
/** Every entry but the search index's (derived data under its own prefix). */
async function dump(kv: Deno.Kv): Promise<unknown[]> {
  return (await Array.fromAsync(kv.list({ prefix: [] })))
    .filter((e) => e.key[0] !== SEARCH_PREFIX).map((e) => [e.key, e.value]);
}

Deno.test("setNorthStar() creates the project and trims the text", () =>
  withKv(async (kv) => {
    await setNorthStar(kv, limits, "p1", "  Ship v1  ");
    const project = (await kv.get<Project>(projectKey("p1"))).value!;
    assert.equal(project.northStar, "Ship v1");
    assert.equal(project.openFollowUps, 0);
    await setNorthStar(kv, limits, "p1", "Ship v2");
    const updated = (await kv.get<Project>(projectKey("p1"))).value!;
    assert.equal(updated.northStar, "Ship v2");
    assert.equal(updated.createdAt, project.createdAt);
  }));

Deno.test("setNorthStar() refuses empty, whitespace, multi-line and oversized text, writing nothing", () =>
  withKv(async (kv) => {
    await setNorthStar(kv, limits, "p1", "Keep me");
    const before = await dump(kv);
    for (
      const [text, pattern] of [
        ["", /must not be empty or whitespace-only/],
        [" \t\n ", /must not be empty or whitespace-only/],
        ["two\nlines", /single line/],
        ["x".repeat(limits.textMax + 1), /at most 4000/],
      ] as const
    ) {
      await assert.rejects(() => setNorthStar(kv, limits, "p1", text), pattern);
    }
    assert.deepEqual(await dump(kv), before);
  }));

Deno.test("validateProjectId() bounds length and refuses control characters", () =>
  withKv(async (kv) => {
    await assert.rejects(() => setNorthStar(kv, limits, "", "x"), /project_id must be 1–128/);
    await assert.rejects(() => setNorthStar(kv, limits, "a".repeat(129), "x"), /129 characters/);
    await assert.rejects(() => setNorthStar(kv, limits, "a\u0000b", "x"), /control characters/);
    // KV would store both lone surrogates as U+FFFD, merging two different ids into one.
    await assert.rejects(() => setNorthStar(kv, limits, "a\uD800", "x"), /lone surrogates/);
    await assert.rejects(() => setNorthStar(kv, limits, "p", "bad \uDC00 text"), /lone surrogates/);
    // 128 characters counted as characters, not UTF-16 units.
    await setNorthStar(kv, limits, "🎯".repeat(128), "ok");
    // The project, and the bump of the resource list's notice key (a project was created).
    assert.deepEqual(await dump(kv).then((d) => d.length), 2);
  }));

Deno.test("setFocus() keeps one focus per project and clears an omitted why", () =>
  withKv(async (kv) => {
    await setFocus(kv, limits, "p1", "First", "because");
    await setFocus(kv, limits, "p1", "Second");
    const focus = (await kv.get(focusKey("p1"))).value;
    assert.deepEqual(
      { ...(focus as object), updatedAt: undefined },
      { statement: "Second", updatedAt: undefined },
    );
    await setFocus(kv, limits, "p1", "Third", "  ");
    assert.equal((await getState(kv, limits, "p1")).focus?.why, undefined);
    const foci = await Array.fromAsync(kv.list({ prefix: ["focus"] }));
    assert.equal(foci.length, 1);
  }));

Deno.test("addTask() derives demoted from kind and writes task, pointer and index in one go", () =>
  withKv(async (kv) => {
    const cleanup = await addTask(kv, limits, "p1", "tidy", "cleanup");
    const record = await addTask(kv, limits, "p1", "note", "record");
    const main = await addTask(kv, limits, "p1", "build", "main");
    assert.deepEqual([cleanup.demoted, record.demoted, main.demoted], [true, true, false]);
    assert.equal((await kv.get(taskProjectKey(main.id))).value, "p1");
    // The index keeps what get_state shows, for cleanup and record tasks only.
    assert.equal(
      (await kv.get(followUpBlockKey("p1", 0))).value,
      `${cleanup.id}\tcleanup\t${cleanup.createdAt}\ttidy\n${record.id}\trecord\t${record.createdAt}\tnote`,
    );
    assert.equal((await kv.get<Project>(projectKey("p1"))).value?.openFollowUps, 2);
    const state = await getState(kv, limits, "p1");
    assert.deepEqual(state.followUps.map((t) => t.body), ["tidy", "note"]);
  }));

Deno.test("addTask() refuses an unknown kind and says which are allowed", () =>
  withKv(async (kv) => {
    await assert.rejects(
      () => addTask(kv, limits, "p1", "x", "urgent"),
      /kind must be one of main, cleanup, record/,
    );
    assert.deepEqual(await dump(kv), []);
  }));

Deno.test("addTask() stops at the open follow-up limit; completing one frees a place", () =>
  withKv(async (kv) => {
    const small = { ...limits, openFollowUpsMax: 2 };
    const first = await addTask(kv, small, "p1", "a", "cleanup");
    await addTask(kv, small, "p1", "b", "record");
    const error = await addTask(kv, small, "p1", "c", "cleanup").catch((e) => e);
    assert.ok(error instanceof AppError);
    assert.equal(error.kind, "full");
    assert.match(error.message, /at most 2 are allowed/);
    await addTask(kv, small, "p1", "main tasks are not limited", "main");
    await completeTask(kv, first.id);
    await addTask(kv, small, "p1", "c", "cleanup");
    assert.equal((await getState(kv, small, "p1")).followUps.length, 2);
  }));

Deno.test("completeTask() marks done once, drops it from the index, and reports a repeat", () =>
  withKv(async (kv) => {
    const task = await addTask(kv, limits, "p1", "tidy", "cleanup");
    const first = await completeTask(kv, task.id);
    assert.equal(first.alreadyDone, false);
    const stored = (await kv.get<Task>(taskKey("p1", task.id))).value!;
    assert.equal(stored.status, "done");
    assert.ok(stored.doneAt);
    assert.equal((await kv.get(followUpBlockKey("p1", 0))).value, null);
    assert.equal((await kv.get<Project>(projectKey("p1"))).value?.openFollowUps, 0);
    const second = await completeTask(kv, task.id);
    assert.equal(second.alreadyDone, true);
    assert.equal(second.task.doneAt, stored.doneAt);
  }));

Deno.test("completeTask() names an unknown id", () =>
  withKv(async (kv) => {
    await assert.rejects(
      () => completeTask(kv, "01ARZ3NDEKTSV4RRFFQ69G5FAV"),
      /no task has id "01ARZ3NDEKTSV4RRFFQ69G5FAV"/,
    );
    await assert.rejects(() => completeTask(kv, "nope"), /no task has id "nope"/);
  }));

Deno.test("getState() reads only open follow-ups, whatever the number of finished tasks", () =>
  withKv(async (kv) => {
    for (let i = 0; i < 30; i++) {
      const t = await addTask(kv, limits, "p1", `done ${i}`, "cleanup");
      await completeTask(kv, t.id);
    }
    await addTask(kv, limits, "p1", "still open", "record");
    const state = await getState(kv, limits, "p1");
    assert.deepEqual(state.followUps.map((t) => t.body), ["still open"]);
  }));

/** Rewrites `projectId`'s index as versions before the blocks wrote it: one bare id per task. */
async function makeLegacy(kv: Deno.Kv, projectId: string, tasks: Task[]): Promise<void> {
  const { followUpsPacked: _, ...project } = (await kv.get<Project>(projectKey(projectId))).value!;
  await kv.set(projectKey(projectId), project);
  for await (const block of kv.list({ prefix: followUpBlockPrefix(projectId) })) {
    await kv.delete(block.key);
  }
  for (const t of tasks) await kv.set(legacyFollowUpKey(projectId, t.id), t.id);
}

Deno.test("the start-up migration moves the older follow-up index into blocks, once", () =>
  withKv(async (kv) => {
    const old = await addTask(kv, limits, "p1", "old cleanup", "cleanup");
    const later = await addTask(kv, limits, "p1", "old record", "record");
    const done = await addTask(kv, limits, "p1", "done already", "cleanup");
    await completeTask(kv, done.id);
    await makeLegacy(kv, "p1", [old, later, done]);
    await addTask(kv, limits, "p2", "packed", "cleanup");
    assert.deepEqual((await getState(kv, limits, "p1")).followUps, [], "blocks only, not yet");

    assert.equal(await migrateLegacyFollowUps(kv), 1, "p1 moved; p2 was in blocks");
    const project = (await kv.get<Project>(projectKey("p1"))).value!;
    assert.equal(project.followUpsPacked, true);
    assert.equal(project.openFollowUps, 2);
    assert.deepEqual(
      (await getState(kv, limits, "p1")).followUps.map((t) => [t.id, t.kind, t.body, t.status]),
      [[old.id, "cleanup", "old cleanup", "open"], [later.id, "record", "old record", "open"]],
    );
    assert.equal((await Array.fromAsync(kv.list({ prefix: legacyFollowUpPrefix() }))).length, 0);
    assert.deepEqual((await getState(kv, limits, "p2")).followUps.map((t) => t.body), ["packed"]);
    assert.equal(await migrateLegacyFollowUps(kv), 0, "nothing left: a second run moves none");
    await completeTask(kv, old.id);
    assert.deepEqual((await getState(kv, limits, "p1")).followUps.map((t) => t.body), [
      "old record",
    ]);
  }));

Deno.test("the migration resumes: staged blocks from a stopped run are rebuilt, leftovers deleted", () =>
  withKv(async (kv) => {
    const tasks = [];
    for (let i = 0; i < 3; i++) tasks.push(await addTask(kv, limits, "p1", `f${i}`, "cleanup"));
    await makeLegacy(kv, "p1", tasks);
    // A run stopped after staging a block built from another version of the project.
    await kv.set(followUpBlockKey("p1", 0), "stale");
    await kv.set(followUpBlockKey("p1", 1), "stale too");
    // And a project already switched whose older entries were not deleted yet.
    const p2 = await addTask(kv, limits, "p2", "kept", "record");
    await kv.set(legacyFollowUpKey("p2", p2.id), p2.id);
    assert.equal(await migrateLegacyFollowUps(kv), 1);
    assert.deepEqual((await getState(kv, limits, "p1")).followUps.map((t) => t.body), [
      "f0",
      "f1",
      "f2",
    ]);
    assert.equal((await kv.get(followUpBlockKey("p1", 1))).versionstamp, null);
    assert.deepEqual((await getState(kv, limits, "p2")).followUps.map((t) => t.body), ["kept"]);
    assert.equal((await kv.get(legacyFollowUpKey("p2", p2.id))).versionstamp, null);
  }));

Deno.test("open follow-ups spill into more blocks, stay in order, and empty blocks go", () =>
  withKv(async (kv) => {
    const big = { ...limits, openFollowUpsMax: 500 };
    const tasks: Task[] = [];
    for (let i = 0; i < 30; i++) {
      tasks.push(await addTask(kv, big, "p1", `${i}\t${"長".repeat(3990)}`, "cleanup"));
    }
    const blocks = await Array.fromAsync(kv.list({ prefix: followUpBlockPrefix("p1") }));
    assert.ok(blocks.length >= 4, `${blocks.length} blocks`);
    for (const t of tasks.slice(0, 10)) await completeTask(kv, t.id);
    await completeTask(kv, tasks[20].id);
    const state = await getState(kv, big, "p1");
    assert.deepEqual(
      state.followUps.map((t) => t.id),
      tasks.slice(10).filter((_, i) => i !== 10).map((t) => t.id),
    );
    assert.equal(state.project?.openFollowUps, 19);
    const after = await Array.fromAsync(kv.list({ prefix: followUpBlockPrefix("p1") }));
    assert.ok(after.length < blocks.length, "a block emptied by completions is deleted");
  }));

Deno.test("addTaskWithState() returns exactly the state getState() reads after the write", () =>
  withKv(async (kv) => {
    const first = await addTaskWithState(kv, limits, "p1", "first", "main");
    assert.deepEqual(first.state, await getState(kv, limits, "p1"));
    await setNorthStar(kv, limits, "p1", "Ship it");
    await setFocus(kv, limits, "p1", "Write the docs", "users ask");
    for (const kind of ["cleanup", "main", "record"]) {
      const { task, state } = await addTaskWithState(kv, limits, "p1", `a ${kind}`, kind);
      assert.deepEqual(state, await getState(kv, limits, "p1"), task.kind);
    }
    assert.deepEqual(
      (await getState(kv, limits, "p1")).followUps.map((t) => t.body),
      ["a cleanup", "a record"],
    );
  }));

Deno.test("concurrent writes to one project from one process take turns instead of retrying", () =>
  withKv(async (kv) => {
    // With the per-key queue none of 40 writers loses a check, and those waiting for the
    // project's turn go together: fewer commits than writes.
    const commits = countCommits(kv);
    await Promise.all(
      Array.from({ length: 40 }, (_, i) => addTask(kv, limits, "p1", `t${i}`, "cleanup")),
    );
    assert.equal(commits.failed(), 0);
    assert.ok(commits.count() < 40, `${commits.count()} commits`);
    assert.equal((await getState(kv, limits, "p1")).project?.openFollowUps, 40);
  }));

Deno.test("concurrent addTask() calls lose nothing and keep the counter exact", () =>
  withKv(async (kv) => {
    await Promise.all(
      Array.from({ length: 40 }, (_, i) => addTask(kv, limits, "p1", `t${i}`, "cleanup")),
    );
    const state = await getState(kv, limits, "p1");
    assert.equal(state.followUps.length, 40);
    assert.equal(state.project?.openFollowUps, 40);
  }));

Deno.test("listProjects() pages in id order with a cursor", () =>
  withKv(async (kv) => {
    for (const id of ["c", "a", "b"]) await setNorthStar(kv, limits, id, `star ${id}`);
    const first = await listProjects(kv, { limit: 2 });
    assert.deepEqual(first.items.map((p) => p.id), ["a", "b"]);
    assert.equal(first.hasMore, true);
    const second = await listProjects(kv, { limit: 2, cursor: first.nextCursor! });
    assert.deepEqual(second.items.map((p) => p.id), ["c"]);
    assert.equal(second.hasMore, false);
    assert.equal(second.nextCursor, null);
    await assert.rejects(() => listProjects(kv, { limit: 2, cursor: "garbage!" }), /cursor/);
  }));

Deno.test("projectIdsStartingWith() completes ids by prefix", () =>
  withKv(async (kv) => {
    for (const id of ["alpha", "alpine", "beta"]) await setNorthStar(kv, limits, id, "x");
    assert.deepEqual(await projectIdsStartingWith(kv, "alp", 10), ["alpha", "alpine"]);
    assert.deepEqual(await projectIdsStartingWith(kv, "", 10), ["alpha", "alpine", "beta"]);
  }));

Deno.test("validateProjectId() refuses a whitespace-only id", () =>
  withKv(async (kv) => {
    for (const id of ["   ", "\t", "\u3000"]) {
      await assert.rejects(() => setNorthStar(kv, limits, id, "x"), /not blank/);
      await assert.rejects(() => getState(kv, limits, id), /not blank/);
    }
    assert.deepEqual(await dump(kv), []);
  }));

Deno.test("concurrent follow-ups past the limit: each is refused alone, the rest land in order", () =>
  withKv(async (kv) => {
    const small = { ...limits, openFollowUpsMax: 3 };
    const results = await Promise.allSettled(
      Array.from({ length: 6 }, (_, i) => addTask(kv, small, "p1", `t${i}`, "cleanup")),
    );
    assert.deepEqual(results.map((r) => r.status), [
      "fulfilled",
      "fulfilled",
      "fulfilled",
      "rejected",
      "rejected",
      "rejected",
    ]);
    for (const r of results.slice(3)) {
      assert.match(String((r as PromiseRejectedResult).reason), /at most 3 are allowed/);
    }
    const state = await getState(kv, small, "p1");
    assert.deepEqual(state.followUps.map((t) => t.body), ["t0", "t1", "t2"]);
    assert.equal(state.project?.openFollowUps, 3);
    // A main task is not limited, even in the same batch as refused follow-ups.
    const mixed = await Promise.allSettled([
      addTask(kv, small, "p1", "x", "record"),
      addTask(kv, small, "p1", "m", "main"),
    ]);
    assert.deepEqual(mixed.map((r) => r.status), ["rejected", "fulfilled"]);
  }));
