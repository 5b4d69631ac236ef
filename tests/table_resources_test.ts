/**
 * The table's resources over an SDK client: both templates listed and completable, a
 * discussion read as the caller (fenced, latest_seq, moves only the reader's position), and
 * the caller's own waiting items.
 */

import assert from "node:assert/strict";
import { call } from "./support/mcp.ts";
import { CLAUDE, CODEX, OWNER, withTable } from "./support/table_mcp.ts";
import {
  DISCUSSION_TEMPLATE,
  discussionUri,
  WAITING_TEMPLATE,
  waitingUri,
} from "../src/table/tools_resources.ts";

const WS = "acme/app";

Deno.test("table resources: listed as templates, completable, read as the caller", async () => {
  await withTable({}, async (w) => {
    const codex = await w.client(CODEX);
    const claude = await w.client(CLAUDE);
    const owner = await w.client(OWNER);
    const templates = (await claude.listResourceTemplates()).resourceTemplates
      .map((t) => t.uriTemplate);
    assert.ok(templates.includes(DISCUSSION_TEMPLATE) && templates.includes(WAITING_TEMPLATE));

    const d = await call(codex, "create_discussion", { title: "T", body: "one", workspace: WS });
    const id = (d.structured.discussion as { id: string }).id;
    for (let i = 2; i <= 60; i++) {
      await call(codex, "post_message", { discussion_id: id, body: `m${i}` });
    }
    await call(codex, "create_discussion", { title: "elsewhere", workspace: "zeta" });

    const ws = await claude.complete({
      ref: { type: "ref/resource", uri: DISCUSSION_TEMPLATE },
      argument: { name: "workspace", value: "ac" },
    });
    assert.deepEqual(ws.completion.values, ["acme%2Fapp"], "workspaces come percent-encoded");
    const ids = await claude.complete({
      ref: { type: "ref/resource", uri: DISCUSSION_TEMPLATE },
      argument: { name: "discussion_id", value: id.slice(0, 4).toLowerCase() },
      context: { arguments: { workspace: "acme%2Fapp" } },
    });
    assert.deepEqual(ids.completion.values, [id]);
    const waitingWs = await claude.complete({
      ref: { type: "ref/resource", uri: WAITING_TEMPLATE },
      argument: { name: "workspace", value: "z" },
    });
    assert.deepEqual(waitingWs.completion.values, ["zeta"]);

    // claude reads the resource: the latest page (50 of 60), fenced, with latest_seq.
    const uri = discussionUri(WS, id);
    assert.equal(uri, `handoff://table/acme%2Fapp/discussions/${id}`);
    const read = await claude.readResource({ uri });
    const content = read.contents[0] as { text: string; _meta?: Record<string, unknown> };
    assert.match(content.text, /latest seq 60/);
    assert.match(content.text, /Unread for you before this read: 60/);
    assert.match(content.text, /UNTRUSTED DATA (\S+) follows[\s\S]*END OF SAVED DATA \1/);
    assert.match(content.text, /seq 60 · note/);
    assert.doesNotMatch(content.text, /seq 10 · note/);
    assert.match(content.text, /Earlier messages \(seq 1–10\): get_discussion after_seq=0/);
    assert.deepEqual(content._meta, { latest_seq: 60, unread_before: 60 });

    const unreadOf = async (client: typeof claude) => {
      const c = await call(client, "get_workspace_context", { workspace: WS });
      const open = c.structured.open_items as { unread: unknown };
      const { items, has_more, ...totals } = open.unread as Record<string, unknown>;
      return { totals, named: { items, has_more }, text: c.text, notes: c.structured.notes };
    };
    const forClaude = await unreadOf(claude);
    assert.deepEqual(forClaude.totals, { discussions: 0, messages: 0 });
    assert.deepEqual(forClaude.named, { items: [], has_more: false });
    const forOwner = await unreadOf(owner);
    assert.deepEqual(forOwner.totals, { discussions: 1, messages: 60 });
    assert.deepEqual(forOwner.named, { items: [{ id, title: "T", unread: 60 }], has_more: false });
    assert.match(forOwner.text, /UNREAD FOR YOU: 60 message\(s\) in 1 discussion\(s\)/);
    assert.ok(
      (forOwner.notes as string[]).some((n) => /60 message\(s\) unread.*unread_only=true/.test(n)),
      "the structured view says it too",
    );

    // The same discussion under another workspace is refused, and moves no position.
    await assert.rejects(
      owner.readResource({ uri: discussionUri("other", id) }),
      /is in workspace "acme\/app", not "other"/,
    );
    await assert.rejects(
      owner.readResource({ uri: `handoff://table/acme%2/discussions/${id}` }),
      /not valid percent-encoding/,
    );
    assert.deepEqual((await unreadOf(owner)).totals, { discussions: 1, messages: 60 });

    // unread_only over the tool, after the resource read: nothing left for claude.
    await call(codex, "post_message", { discussion_id: id, body: "news" });
    const fresh = await call(claude, "get_discussion", { discussion_id: id, unread_only: true });
    assert.deepEqual(
      (fresh.structured.messages as { seq: number }[]).map((m) => m.seq),
      [61],
    );
    assert.equal(fresh.structured.unread_before, 1);

    // The waiting resource is the caller's own.
    const task = await call(codex, "create_task", {
      title: "Do it",
      workspace: WS,
      assigned_to: "Claude",
    });
    const taskId = (task.structured.task as { id: string }).id;
    const waiting = async (client: typeof claude) => {
      const r = await client.readResource({ uri: waitingUri(WS) });
      return JSON.parse((r.contents[0] as { text: string }).text);
    };
    const mine = await waiting(claude);
    assert.equal(mine.you_are, "claude");
    assert.deepEqual(mine.waiting_for_you.unaccepted.tasks, [taskId]);
    assert.deepEqual((await waiting(owner)).waiting_for_you.unaccepted.tasks, []);
  });
});
