import assert from "node:assert/strict";
import { CLAUDE, CODEX, withTable } from "../../tests/support/table_mcp.ts";
import { NoticeBus } from "../kit/notices.ts";
import { tableCtx } from "./store_common.ts";
import { createDiscussion, postMessage } from "./store_discussions.ts";
import { acceptHandoff, createHandoff } from "./store_handoffs.ts";
import { discussionTopic, waitingTopic } from "./store_notices.ts";
import { tableUriTopics, waitingUri } from "./tools_resources.ts";
import { createTask, updateTask } from "./store_tasks.ts";

Deno.test("table writes tell the topics whose readers must read again, once they land", async () => {
  await withTable({}, async ({ kv, settings }) => {
    const bus = new NoticeBus();
    const ctx = tableCtx(kv, settings, bus);
    const told: string[] = [];
    const listen = (topic: string) => bus.listen(topic, (t) => told.push(t));
    const take = () => told.splice(0).sort();
    const waiting = (name: string) => waitingTopic(settings.defaultWorkspace, name);
    for (const name of ["codex", "claude", "manus"]) listen(waiting(name));

    const { discussion } = await createDiscussion(ctx, CODEX, { title: "T" });
    listen(discussionTopic(discussion.id));
    await postMessage(ctx, CLAUDE, { discussion_id: discussion.id, body: "hi" });
    assert.deepEqual(take(), [discussionTopic(discussion.id)]);

    const { task } = await createTask(ctx, CODEX, { title: "Do", assigned_to: "Claude" });
    assert.deepEqual(take(), [waiting("claude")], "assigned to claude");
    await updateTask(ctx, CODEX, { task_id: task.id, detail: "more" });
    assert.deepEqual(take(), [], "a new detail changes nobody's waiting items");
    const first = await createHandoff(ctx, CODEX, { task_id: task.id, to: "manus", context: "c" });
    assert.deepEqual(take(), [waiting("claude"), waiting("manus")]);
    await createHandoff(ctx, CODEX, { task_id: task.id, to: "claude", context: "c2" });
    assert.deepEqual(take(), [waiting("claude"), waiting("manus")], "manus's superseded");
    await acceptHandoff(ctx, CLAUDE, { handoff_id: first.handoff.id }).catch(() => {});
    assert.deepEqual(take(), [], "a refused accept tells nobody");
    const second =
      (await createHandoff(ctx, CODEX, { task_id: task.id, to: "manus", context: "c3" }))
        .handoff;
    take();
    await acceptHandoff(ctx, CODEX, { handoff_id: second.id });
    assert.deepEqual(take(), [waiting("codex"), waiting("manus")], "accepted by codex");
    await updateTask(ctx, CODEX, { task_id: task.id, status: "done" });
    assert.deepEqual(take(), [waiting("codex")], "done: off its owner's list");

    // Every topic's key was bumped in KV, for the other processes' feeds.
    const bumps = await Array.fromAsync(kv.list({ prefix: ["notice"] }));
    assert.deepEqual(
      bumps.map((e) => e.key[1]).sort(),
      [discussionTopic(discussion.id), ...["codex", "claude", "manus"].map(waiting)].sort(),
    );
  });
});

Deno.test("a name or workspace holding / cannot make its topic another's (shop/bob in acme is not bob in acme/shop)", async () => {
  await withTable({}, async ({ kv, settings }) => {
    const bus = new NoticeBus();
    const ctx = tableCtx(kv, settings, bus);
    assert.notEqual(waitingTopic("acme", "shop/bob"), waitingTopic("acme/shop", "bob"));
    const uris = tableUriTopics(ctx);
    const slashed = uris.topicOf(waitingUri("acme"), { name: "shop/bob", via: "header" });
    const bob = uris.topicOf(waitingUri("acme/shop"), { name: "bob", via: "header" });
    assert.notEqual(slashed, bob);
    const told: string[] = [];
    bus.listen(slashed!, () => told.push("shop/bob in acme"));
    bus.listen(bob!, () => told.push("bob in acme/shop"));
    await createTask(ctx, CODEX, { title: "Do", assigned_to: "bob", workspace: "acme/shop" });
    assert.deepEqual(told, ["bob in acme/shop"]);
    await createTask(ctx, CODEX, { title: "Do", assigned_to: "shop/bob", workspace: "acme" });
    assert.deepEqual(told, ["bob in acme/shop", "shop/bob in acme"]);
    // The KV keys other processes follow are as distinct.
    const bumped = (await Array.fromAsync(kv.list({ prefix: ["notice"] }))).map((e) => e.key);
    assert.equal(new Set(bumped.map((k) => JSON.stringify(k))).size, 2);
  });
});
