/**
 * A live table across processes: two `main.ts` processes on one KV file, a v2 client listening
 * over 2026-07-28 (`subscriptions/listen`) on one and a poster on the other. The notice arrives,
 * a re-read shows the post, unread counts are right for the listener, the poster and a third
 * who never read, a participant hears only their own waiting items (a name holding / too), and
 * the limits refuse a stream clearly and free what a closed one held.
 */

import assert from "node:assert/strict";
import { randomToken } from "../src/kit/ids.ts";
import { Client, StreamableHTTPClientTransport } from "../src/client/sdk_client.ts";
import { ClientV2, StreamableHTTPClientTransportV2 } from "../src/client/sdk_client_v2.ts";
import { discussionUri, waitingUri } from "../src/table/tools_resources.ts";
import { call, spawnServer, startServer, tempKvPath } from "./support/harness.ts";
import { type Heard, heardUntil } from "./support/heard.ts";

const WS = "acme/app";
const MODERN = "2026-07-28";

async function clientAs(base: string, name: string) {
  const client = new Client({ name: `notices-${name}`, version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
      requestInit: { headers: { "x-client-name": name } },
    }),
  );
  return client;
}

/** A v2 client pinned to 2026-07-28 as `name`, recording every resource notice it gets. */
async function listenerAs(base: string, name: string) {
  const client = new ClientV2({ name: `listener-${name}`, version: "1.0.0" }, {
    versionNegotiation: { mode: { pin: MODERN } },
  });
  await client.connect(
    new StreamableHTTPClientTransportV2(new URL(`${base}/mcp`), {
      requestInit: { headers: { "x-client-name": name } },
    }),
  );
  const heard: Heard = [];
  client.setNotificationHandler("notifications/resources/updated", (n) => {
    heard.push(n.params.uri);
  });
  return { client, heard };
}

Deno.test("a 2026 listener on one process hears posts and its own handoffs made on another", async () => {
  const file = await tempKvPath();
  const token = randomToken(32);
  const env = { KV_PATH: file.path, AUTH_TOKEN: token, TOOLSETS: "table", NOTICE_POLL_MS: "20" };
  const a = await spawnServer({ ...env, NOTICE_STREAMS_MAX: "2", NOTICE_URIS_MAX: "3" });
  const b = await spawnServer(env);
  const closers: { close(): Promise<void> }[] = [];
  try {
    const poster = await clientAs(`${b.origin}/${token}`, "poster");
    closers.push(poster);
    const d = await call(poster, "create_discussion", { title: "T", body: "one", workspace: WS });
    const id = (d.structured.discussion as { id: string }).id;
    const uris = [discussionUri(WS, id), waitingUri(WS)];

    const claude = await listenerAs(`${a.origin}/${token}`, "Claude");
    closers.push(claude.client);
    const sub = await claude.client.listen({ resourceSubscriptions: uris });
    assert.deepEqual(sub.honoredFilter.resourceSubscriptions, uris);

    // A post on the other process: the listener hears the discussion's URI, and only that.
    await call(poster, "post_message", { discussion_id: id, body: "two" });
    await heardUntil(claude.heard, [uris[0]], "a post on the other process");

    // Re-reading shows the post; unread counts are right for all three.
    const read = await claude.client.readResource({ uri: uris[0] });
    assert.match((read.contents[0] as { text: string }).text, /two/);
    // The totals (the discussions it names are checked in result_budget_table_test.ts).
    const unread = async (client: Client) => {
      const { discussions, messages } = ((await call(client, "get_workspace_context", {
        workspace: WS,
      })).structured.open_items as { unread: { discussions: number; messages: number } }).unread;
      return { discussions, messages };
    };
    const claudeV1 = await clientAs(`${a.origin}/${token}`, "claude");
    const third = await clientAs(`${a.origin}/${token}`, "never-read");
    closers.push(claudeV1, third);
    assert.deepEqual(await unread(claudeV1), { discussions: 0, messages: 0 }, "read it all");
    assert.deepEqual(await unread(poster), { discussions: 0, messages: 0 }, "its own posts");
    assert.deepEqual(await unread(third), { discussions: 1, messages: 2 }, "never read");

    // A handoff to someone else is not claude's news; one to claude is.
    const task = await call(poster, "create_task", { title: "Do", workspace: WS });
    const taskId = (task.structured.task as { id: string }).id;
    await call(poster, "create_handoff", { task_id: taskId, to: "manus", context: "for manus" });
    await call(poster, "post_message", { discussion_id: id, body: "fence" });
    await heardUntil(claude.heard, [uris[0], uris[0]], "the fence after manus's handoff");
    await call(poster, "create_handoff", { task_id: taskId, to: "claude", context: "for you" });
    await heardUntil(claude.heard, [uris[0], uris[0], uris[1]], "a handoff to claude");

    // Limits: NOTICE_URIS_MAX=3 per stream, NOTICE_STREAMS_MAX=2 per process.
    const many = ["A", "B", "C", "D"].map((n) =>
      discussionUri(WS, `01J000000000000000000000${n}0`)
    );
    await assert.rejects(
      () => claude.client.listen({ resourceSubscriptions: many }),
      /At most 3 resources can be listened to at once \(NOTICE_URIS_MAX\), got 4/,
    );
    await assert.rejects(
      () => claude.client.listen({ resourceSubscriptions: ["handoff://nowhere/x"] }),
      /Cannot listen to handoff:\/\/nowhere\/x: .*handoff:\/\/table\/\{workspace\}\/waiting/,
    );
    const second = await claude.client.listen({ resourceSubscriptions: [uris[0]] });
    await assert.rejects(
      () => claude.client.listen({ resourceSubscriptions: [uris[0]] }),
      /at most 2 subscription streams \(NOTICE_STREAMS_MAX\)/,
    );
    // A closed stream leaves nothing behind: its place is free again, and it hears no more.
    await second.close();
    assert.equal(await second.closed, "local");
    const third2 = await waitFor(() => claude.client.listen({ resourceSubscriptions: [uris[0]] }));
    await third2.close();
    await sub.close();
    const before = claude.heard.length;
    await call(poster, "post_message", { discussion_id: id, body: "after close" });
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(claude.heard.length, before, "nothing after the listener closed");
  } finally {
    for (const c of closers) await c.close().catch(() => {});
    await a.close();
    await b.close();
    await file.cleanup();
  }
});

Deno.test("shutdown ends an open 2026 listen gracefully", async () => {
  const file = await tempKvPath();
  const token = randomToken(32);
  const server = await spawnServer({ KV_PATH: file.path, AUTH_TOKEN: token, TOOLSETS: "table" });
  const listener = await listenerAs(`${server.origin}/${token}`, "claude");
  try {
    const sub = await listener.client.listen({ resourceSubscriptions: [waitingUri(WS)] });
    await server.close();
    assert.equal(await sub.closed, "graceful");
  } finally {
    await listener.client.close().catch(() => {});
    await file.cleanup();
  }
});

/** Retries `fn` (bounded: 2 s) while the server has not yet let go of a closed stream. */
async function waitFor<T>(fn: () => Promise<T>): Promise<T> {
  for (let i = 0;; i++) {
    try {
      return await fn();
    } catch (error) {
      if (i >= 100) throw error;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

Deno.test("notifications/cancelled ends that caller's listen stream while its connection stays", async () => {
  const server = await startServer({ env: { TOOLSETS: "table" } });
  const url = `${server.origin}/${server.token}/mcp`;
  const meta = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  const post = (body: unknown, name: string, method?: string) =>
    fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": MODERN,
        "x-client-name": name,
        ...(method ? { "mcp-method": method } : {}),
      },
      body: JSON.stringify(body),
    });
  const listen = (name: string) =>
    post(
      {
        jsonrpc: "2.0",
        id: "listen:0",
        method: "subscriptions/listen",
        params: { _meta: meta, notifications: { resourceSubscriptions: [waitingUri(WS)] } },
      },
      name,
      "subscriptions/listen",
    );
  const cancel = (name: string) =>
    post({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: "listen:0", _meta: meta },
    }, name);
  try {
    const mine = await listen("claude");
    const theirs = await listen("codex"); // the same request id, another caller
    assert.equal(mine.headers.get("content-type"), "text/event-stream");
    // As the SDK's client sends it: no Mcp-Method header.
    await (await cancel("claude")).body?.cancel();
    // The stream ends (bounded: 3 s), closed with its listen request's result.
    const text = await Promise.race([
      mine.text(),
      new Promise<string>((r) => setTimeout(() => r("still open after 3 s"), 3000)),
    ]);
    assert.match(text, /notifications\/subscriptions\/acknowledged/);
    assert.match(text, /"id":"listen:0","result":\{"resultType":"complete"/);
    // The other caller's stream with the same id is still open.
    const reader = theirs.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    assert.match(first, /acknowledged/);
    const next = await Promise.race([
      reader.read().then(() => "more"),
      new Promise((r) => setTimeout(() => r("open"), 300)),
    ]);
    assert.equal(next, "open");
    await reader.cancel();
  } finally {
    await server.close();
  }
});

Deno.test("a listener named shop/bob in acme never hears bob's waiting items in acme/shop", async () => {
  const server = await startServer({ env: { TOOLSETS: "table" } });
  const base = `${server.origin}/${server.token}`;
  const closers: { close(): Promise<void> }[] = [];
  try {
    const poster = await clientAs(base, "poster");
    closers.push(poster);
    const d = await call(poster, "create_discussion", {
      title: "T",
      body: "one",
      workspace: "acme",
    });
    const fence = discussionUri("acme", (d.structured.discussion as { id: string }).id);
    const slashed = await listenerAs(base, "shop/bob");
    closers.push(slashed.client);
    await slashed.client.listen({ resourceSubscriptions: [fence, waitingUri("acme")] });

    // bob's work in acme/shop is not shop/bob's in acme.
    const other = await call(poster, "create_task", { title: "Do", workspace: "acme/shop" });
    const otherId = (other.structured.task as { id: string }).id;
    await call(poster, "create_handoff", { task_id: otherId, to: "bob", context: "for bob" });
    await call(poster, "post_message", { discussion_id: fence.split("/").at(-1), body: "fence" });
    await heardUntil(slashed.heard, [fence], "only the fence after bob's handoff in acme/shop");

    const own = await call(poster, "create_task", { title: "Do", workspace: "acme" });
    const ownId = (own.structured.task as { id: string }).id;
    await call(poster, "create_handoff", { task_id: ownId, to: "shop/bob", context: "yours" });
    await heardUntil(slashed.heard, [fence, waitingUri("acme")], "its own handoff in acme");
  } finally {
    for (const c of closers) await c.close();
    await server.close();
  }
});
