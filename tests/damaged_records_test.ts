/**
 * A stored record of the wrong shape (an edited file imported, a damaged database): every table
 * and handoff tool that reads it answers "this stored record is damaged: <key>" (isError), and
 * the JSON API a JSON 500 saying the same, never a TypeError or a bare 500.
 */

import assert from "node:assert/strict";
import { call, connect, startServer } from "./support/harness.ts";

// Tool results are read field by field; a loose type keeps that readable.
// deno-lint-ignore no-explicit-any
type Loose = any;

async function made(client: Parameters<typeof call>[0], tool: string, args: object) {
  const r = await call(client, tool, args as Record<string, unknown>);
  assert.equal(r.isError, false, `${tool}: ${r.text}`);
  return r.structured as Loose;
}

Deno.test("tools and the JSON API answer a damaged stored record by naming its key", async () => {
  const server = await startServer();
  const client = await connect(server, "http");
  try {
    const { kv } = server;
    const broken = (await made(client, "create_discussion", { title: "A", body: "hi" }))
      .discussion.id;
    const quiet = (await made(client, "create_discussion", { title: "B", body: "hello" }))
      .discussion.id;
    const decision = (await made(client, "record_decision", { title: "D", detail: "why" }))
      .decision.id;
    const task = (await made(client, "create_task", { title: "T" })).task.id;
    const handoff = (await made(client, "create_handoff", {
      task_id: task,
      to: "claude",
      context: "take it",
    })).handoff.id;
    await made(client, "handoff_save", { key: "h1", summary: "s", conversation: "## User\nx" });

    const damage = async (key: Deno.KvKey, change: (v: Loose) => Loose) =>
      await kv.set(key, change((await kv.get<Loose>(key)).value));
    await damage(["discussion", broken], (v) => ({ ...v, latest_seq: "many" }));
    await damage(["message", quiet, 1], (v) => ({ ...v, body: "not bytes" }));
    await damage(["decision", decision], (v) => ({ ...v, status: 42 }));
    await damage(["ws_task", task], ({ title: _, ...v }) => v);
    await damage(["ws_handoff", handoff], (v) => ({ ...v, context: null }));
    await damage(["handoff", "h1"], (v) => ({ ...v, chunks: "x" }));

    const cases: [string, Record<string, unknown>, string][] = [
      ["get_discussion", { discussion_id: broken }, `["discussion","${broken}"]`],
      ["post_message", { discussion_id: broken, body: "more" }, `["discussion","${broken}"]`],
      ["get_discussion", { discussion_id: quiet }, `["message","${quiet}",1]`],
      ["get_decisions", {}, `["decision","${decision}"]`],
      ["resolve_decision", { decision_id: decision, verdict: "approved", reason: "ok" }, `[`],
      ["get_tasks", {}, `["ws_task","${task}"]`],
      ["update_task", { task_id: task, status: "done" }, `["ws_task","${task}"]`],
      ["get_handoffs", {}, `["ws_handoff","${handoff}"]`],
      ["accept_handoff", { handoff_id: handoff }, `["ws_handoff","${handoff}"]`],
      ["get_workspace_context", {}, `[`],
      ["handoff_load", { key: "h1" }, `["handoff","h1"]`],
      ["handoff_list", {}, `["handoff","h1"]`],
      ["handoff_search", { query: "s" }, `["handoff","h1"]`],
    ];
    for (const [tool, args, key] of cases) {
      const r = await call(client, tool, args);
      assert.equal(r.isError, true, `${tool} answered: ${r.text}`);
      assert.ok(
        r.text.includes(`this stored record is damaged: ${key}`),
        `${tool} answered: ${r.text}`,
      );
      assert.doesNotMatch(r.text, /TypeError|Cannot read properties/);
    }

    for (const path of ["api/handoffs/h1", "api/handoffs"]) {
      const res = await fetch(`${server.origin}/${server.token}/${path}`);
      assert.equal(res.status, 500, path);
      assert.match(res.headers.get("content-type") ?? "", /application\/json/);
      const body = await res.json();
      assert.equal(body.kind, "damaged");
      assert.match(body.error, /^this stored record is damaged: \["handoff","h1"\] \(chunks: /);
    }
  } finally {
    await client.close();
    await server.close();
  }
});
