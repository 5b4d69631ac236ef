/**
 * A database written before the follow-up blocks (one `task_open_followup` entry per open
 * follow-up) is moved into blocks when the server starts, so `get_state` over a real connection
 * shows every open follow-up although no reader knows the older shape any more.
 */

import assert from "node:assert/strict";
import { DEFAULT_FOCUS_LIMITS } from "../src/focus/settings.ts";
import { addTask, completeTask } from "../src/focus/store.ts";
import {
  followUpBlockPrefix,
  legacyFollowUpKey,
  legacyFollowUpPrefix,
  type Project,
  projectKey,
} from "../src/focus/store_keys.ts";
import { call, connectStdio, tempKvPath } from "./support/harness.ts";

/** Writes project "old" as versions before the blocks did: no flag, no blocks, one id per task. */
async function seedOlderDatabase(path: string): Promise<string[]> {
  const kv = await Deno.openKv(path);
  try {
    const limits = DEFAULT_FOCUS_LIMITS;
    const open = [];
    for (let i = 0; i < 3; i++) {
      open.push(await addTask(kv, limits, "old", `tidy ${i}`, i % 2 ? "record" : "cleanup"));
    }
    const done = await addTask(kv, limits, "old", "finished", "cleanup");
    await completeTask(kv, done.id);
    const { followUpsPacked: _, ...project } = (await kv.get<Project>(projectKey("old"))).value!;
    await kv.set(projectKey("old"), project);
    for await (const block of kv.list({ prefix: followUpBlockPrefix("old") })) {
      await kv.delete(block.key);
    }
    for (const t of open) await kv.set(legacyFollowUpKey("old", t.id), t.id);
    return open.map((t) => t.id);
  } finally {
    kv.close();
  }
}

Deno.test("the server moves an older follow-up index into blocks at start; get_state shows them all", async () => {
  const file = await tempKvPath();
  try {
    const ids = await seedOlderDatabase(file.path);
    const client = await connectStdio(file.path);
    try {
      const state = await call(client, "get_state", { project_id: "old" });
      assert.equal(state.isError, false, state.text);
      for (const body of ["tidy 0", "tidy 1", "tidy 2"]) assert.match(state.text, new RegExp(body));
      assert.doesNotMatch(state.text, /finished/);
      const done = await call(client, "complete_task", { task_id: ids[1] });
      assert.equal(done.isError, false, done.text);
      const after = await call(client, "get_state", { project_id: "old" });
      assert.doesNotMatch(after.text, /tidy 1/);
      assert.match(after.text, /tidy 2/);
    } finally {
      await client.close();
    }
    const kv = await Deno.openKv(file.path);
    try {
      assert.equal((await Array.fromAsync(kv.list({ prefix: legacyFollowUpPrefix() }))).length, 0);
      assert.equal((await kv.get<Project>(projectKey("old"))).value?.followUpsPacked, true);
    } finally {
      kv.close();
    }
  } finally {
    await file.cleanup();
  }
});
