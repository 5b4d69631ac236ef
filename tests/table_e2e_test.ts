/**
 * The table end to end: the real server and the SDK's own clients over stdio, Streamable HTTP
 * and SSE, as separate clients on one KV file, each recorded under the name it connected with.
 */

import assert from "node:assert/strict";
import {
  Client,
  SSEClientTransport,
  StreamableHTTPClientTransport,
} from "../src/client/sdk_client.ts";
import { randomToken } from "../src/kit/ids.ts";
import { call, connectStdio, spawnServer, startServer, tempKvPath } from "./support/harness.ts";

const CLAUDE_TOKEN = randomToken(24);
const MANUS_TOKEN = randomToken(24);
const SECRET = "person-approval-code";
// Tool results are checked field by field below; a loose type keeps those assertions readable.
// deno-lint-ignore no-explicit-any
type Loose = any;

async function connectAs(
  url: string,
  kind: "http" | "sse",
  headers: Record<string, string> = {},
) {
  const client = new Client({ name: `table-e2e-${kind}`, version: "1.0.0" });
  await client.connect(
    kind === "http"
      ? new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers } })
      : new SSEClientTransport(new URL(`${url}/sse`), { requestInit: { headers } }),
  );
  return client;
}

async function ok(client: InstanceType<typeof Client>, tool: string, args = {}) {
  const r = await call(client, tool, args);
  assert.equal(r.isError, false, `${tool}: ${r.text}`);
  return r.structured as Record<string, Loose>;
}

Deno.test("stdio opens, Streamable HTTP answers, SSE reads: each author and via right", async () => {
  const tmp = await tempKvPath();
  const kv = await Deno.openKv(tmp.path);
  const server = await startServer({
    kv,
    env: { AUTH_TOKENS: `claude=${CLAUDE_TOKEN}`, TOOLSETS: "table" },
  });
  const stdio = await connectStdio(tmp.path, { CLIENT_NAME: "codex", TOOLSETS: "table" });
  try {
    const opened = await ok(stdio, "create_discussion", {
      title: "Which queue?",
      body: "Proposal: use KV queues",
      kind: "proposal",
      workspace: "acme/app",
    });
    const id = opened.discussion.id;
    assert.deepEqual(opened.message.author, { name: "codex", via: "local" });
    const http = await connectAs(`${server.origin}/${CLAUDE_TOKEN}`, "http");
    const answer = await ok(http, "post_message", {
      discussion_id: id,
      body: "Agreed, with retries",
      kind: "review",
      in_reply_to: 1,
    });
    assert.equal(answer.message.seq, 2);
    const sse = await connectAs(`${server.origin}/${server.token}`, "sse", {
      "x-client-name": "gemini",
    });
    const page = await ok(sse, "get_discussion", { discussion_id: id });
    assert.deepEqual(
      page.messages.map((m: Loose) => [m.seq, m.kind, m.author.name, m.author.via]),
      [[1, "proposal", "codex", "local"], [2, "review", "claude", "token"]],
    );
    await ok(sse, "post_message", { discussion_id: id, body: "Noted", kind: "note" });
    const people = await ok(http, "get_participants", { workspace: "acme/app" });
    const vias = Object.fromEntries(
      people.participants.map((p: Loose) => [p.name, p.vias]),
    );
    assert.deepEqual(vias, { codex: ["local"], claude: ["token"], gemini: ["header"] });
    await http.close();
    await sse.close();
  } finally {
    await stdio.close();
    await server.close();
    kv.close();
    await tmp.cleanup();
  }
});

Deno.test("the full loop: discussion, decision resolved with a code, task, handoff, accepted by the addressee", async () => {
  const server = await startServer({
    env: {
      AUTH_TOKENS: `claude=${CLAUDE_TOKEN},manus=${MANUS_TOKEN}`,
      APPROVAL_SECRET: SECRET,
      TOOLSETS: "table",
    },
  });
  const claude = await connectAs(`${server.origin}/${CLAUDE_TOKEN}`, "http");
  const manus = await connectAs(`${server.origin}/${MANUS_TOKEN}`, "sse");
  try {
    const d = await ok(claude, "create_discussion", { title: "Release 2", body: "Ship Friday?" });
    const decision = await ok(claude, "record_decision", {
      title: "Ship on Friday",
      detail: "All tests green",
      discussion_id: d.discussion.id,
    });
    assert.equal(decision.decision.status, "proposed");
    const resolved = await ok(claude, "resolve_decision", {
      decision_id: decision.decision.id,
      verdict: "approved",
      reason: "The owner said yes and typed the code",
      approval_code: SECRET,
    });
    assert.equal(resolved.decision.decided_by_kind, "human");
    assert.deepEqual(resolved.decision.decided_by, { name: "claude", via: "token" });
    const task = await ok(claude, "create_task", {
      title: "Write release notes",
      discussion_id: d.discussion.id,
    });
    const handoff = await ok(claude, "create_handoff", {
      task_id: task.task.id,
      to: "Manus",
      context: "Notes go in CHANGELOG.md; decision approved",
    });
    const before = await ok(manus, "get_workspace_context");
    assert.deepEqual(before.you_are.name, "manus");
    assert.deepEqual(before.open_items.waiting_for_you.unaccepted.handoffs, [handoff.handoff.id]);
    const accepted = await ok(manus, "accept_handoff", { handoff_id: handoff.handoff.id });
    assert.equal(accepted.task.status, "in_progress");
    assert.equal(accepted.task.assigned_to, "manus");
    const after = await ok(manus, "get_workspace_context");
    assert.deepEqual(after.open_items.waiting_for_you.in_progress, {
      tasks: [task.task.id],
      total: 1,
    });
    assert.equal(after.open_items.waiting_for_you.unaccepted.total, 0);
    const again = await call(claude, "accept_handoff", { handoff_id: handoff.handoff.id });
    assert.equal(again.isError, true);
    assert.match(again.text, /already accepted by manus \(via token\)/);
    const thread = await ok(manus, "get_discussion", { discussion_id: d.discussion.id });
    assert.match(
      thread.messages[1].body,
      /approved by claude \(via token\) with a correct approval code/,
    );
  } finally {
    await claude.close();
    await manus.close();
    await server.close();
  }
});

Deno.test("16 concurrent posters on two server processes sharing one KV file: seqs exactly 1..N", async () => {
  const tmp = await tempKvPath();
  const token = randomToken(32);
  const env = { KV_PATH: tmp.path, AUTH_TOKEN: token, TOOLSETS: "table" };
  const [one, two] = await Promise.all([spawnServer(env), spawnServer(env)]);
  const clients: InstanceType<typeof Client>[] = [];
  try {
    for (let i = 0; i < 16; i++) {
      const origin = i % 2 ? one.origin : two.origin;
      clients.push(
        await connectAs(`${origin}/${token}`, "http", { "x-client-name": `poster-${i}` }),
      );
    }
    const d = await ok(clients[0], "create_discussion", { title: "Crowd" });
    const perClient = 5;
    const seqs = (await Promise.all(clients.map(async (c, i) => {
      const mine: number[] = [];
      for (let j = 0; j < perClient; j++) {
        const r = await ok(c, "post_message", {
          discussion_id: d.discussion.id,
          body: `${i}:${j}`,
        });
        mine.push(r.message.seq);
      }
      return mine;
    }))).flat();
    const n = 16 * perClient;
    assert.deepEqual(seqs.sort((a, b) => a - b), Array.from({ length: n }, (_, i) => i + 1));
    const bodies: string[] = [];
    let after = 0;
    for (;;) {
      const page = await ok(clients[1], "get_discussion", {
        discussion_id: d.discussion.id,
        after_seq: after,
        limit: 200,
      });
      bodies.push(...page.messages.map((m: Loose) => m.body));
      if (!page.has_more) break;
      after = page.messages.at(-1).seq;
    }
    assert.equal(new Set(bodies).size, n);
  } finally {
    for (const c of clients) await c.close();
    await Promise.all([one.close(), two.close()]);
    await tmp.cleanup();
  }
});

Deno.test("stdio: --client-name beats CLIENT_NAME, recorded via local", async () => {
  const tmp = await tempKvPath();
  const client = await connectStdio(
    tmp.path,
    { CLIENT_NAME: "ignored", TOOLSETS: "table" },
    ["--client-name", "Cursor"],
  );
  try {
    const c = await ok(client, "get_workspace_context");
    assert.deepEqual([c.you_are.name, c.you_are.via], ["Cursor", "local"]);
  } finally {
    await client.close();
    await tmp.cleanup();
  }
});
