/**
 * The notice feed across processes: a `main.ts` child and this test's own server share one KV
 * file. A listener on this process's bus (reached through a test toolset: the subscription
 * plumbing of MCP sessions comes with SDK v2) hears posts and handoffs made through the child,
 * and through its own server exactly once; unread counts come out right for the poster, the
 * listener and a participant who never read.
 */

import assert from "node:assert/strict";
import { loadConfig } from "../src/config.ts";
import { openKv, randomToken } from "../src/kit/kv.ts";
import type { NoticeBus } from "../src/kit/notices.ts";
import { Client, StreamableHTTPClientTransport } from "../src/mcp/sdk_client.ts";
import type { Toolset } from "../src/mcp/toolset.ts";
import { startHttpServer } from "../src/http/serve.ts";
import { discussionUri, waitingUri } from "../src/table/tools_resources.ts";
import { loadToolsets } from "../src/toolsets.ts";
import { call, spawnServer, tempKvPath } from "./support/harness.ts";

const WS = "acme/app";

/** A test toolset that hands out the process's notice bus. */
function busProbe(found: { bus?: NoticeBus }): Toolset {
  return {
    name: "probe",
    instructions: "",
    register: (_server, deps) => {
      found.bus = deps.notices;
    },
  };
}

async function clientAs(base: string, name: string) {
  const client = new Client({ name: `notices-${name}`, version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
      requestInit: { headers: { "x-client-name": name } },
    }),
  );
  return client;
}

/** Waits (bounded: 5 s) until `heard` holds `n` entries. */
async function until(heard: unknown[], n: number, what: string): Promise<void> {
  for (let i = 0; i < 250 && heard.length < n; i++) await new Promise((r) => setTimeout(r, 20));
  assert.ok(heard.length >= n, `${what}: heard ${heard.length} of ${n}`);
}

Deno.test("a post or a handoff made through another process on the KV file reaches this process's listeners", async () => {
  const file = await tempKvPath();
  const token = randomToken(32);
  const child = await spawnServer({ KV_PATH: file.path, AUTH_TOKEN: token, TOOLSETS: "table" });
  const env = {
    PORT: "0",
    KV_PATH: file.path,
    AUTH_TOKEN: token,
    TOOLSETS: "table",
    NOTICE_POLL_MS: "20",
    NOTICE_LISTENERS_MAX: "3",
  };
  const map = new Map(Object.entries(env));
  const kv = await openKv(file.path);
  const found: { bus?: NoticeBus } = {};
  const here = await startHttpServer(loadConfig(map), kv, [...loadToolsets(map), busProbe(found)]);
  const clients: Client[] = [];
  try {
    const poster = await clientAs(`${child.origin}/${token}`, "poster");
    const listener = await clientAs(`${here.origin}/${token}`, "claude");
    const owner = await clientAs(`${here.origin}/${token}`, "owner");
    clients.push(poster, listener, owner);
    const d = await call(poster, "create_discussion", { title: "T", body: "one", workspace: WS });
    const id = (d.structured.discussion as { id: string }).id;
    const bus = found.bus!;
    const changed: string[] = [];
    const claude = { name: "Claude", via: "header" as const };
    const uris = [discussionUri(WS, id), waitingUri(WS)];
    const stop = bus.listenUris(uris, claude, (uri) => changed.push(uri));
    await bus.ready();

    // A post through the other process: heard here.
    await call(poster, "post_message", { discussion_id: id, body: "two" });
    await until(changed, 1, "a post in the other process");
    assert.deepEqual(changed, [uris[0]]);
    // A task handed off to claude there: claude's waiting items changed.
    const task = await call(poster, "create_task", { title: "Do", workspace: WS });
    await call(poster, "create_handoff", {
      task_id: (task.structured.task as { id: string }).id,
      to: "claude",
      context: "all you need",
    });
    await until(changed, 2, "a handoff to claude in the other process");
    assert.equal(changed[1], uris[1]);
    // A post through this process's own server: heard once, not again by the poll.
    await call(owner, "post_message", { discussion_id: id, body: "three" });
    await until(changed, 3, "a post in this process");
    await new Promise((r) => setTimeout(r, 200));
    assert.deepEqual(changed, [uris[0], uris[1], uris[0]]);

    // The listener re-reads: the posts are there, and unread counts are right for all three.
    const read = await listener.readResource({ uri: uris[0] });
    assert.match((read.contents[0] as { text: string }).text, /seq 3 · note/);
    const unread = async (client: Client) =>
      ((await call(client, "get_workspace_context", { workspace: WS })).structured
        .open_items as { unread: unknown }).unread;
    assert.deepEqual(await unread(listener), { discussions: 0, messages: 0 });
    assert.deepEqual(await unread(poster), { discussions: 1, messages: 1 }, "owner's post");
    const third = await clientAs(`${child.origin}/${token}`, "never-read");
    clients.push(third);
    assert.deepEqual(await unread(third), { discussions: 1, messages: 3 });

    // Over the limit (NOTICE_LISTENERS_MAX=3, two taken): refused by name, nothing left behind.
    assert.throws(
      () =>
        bus.listenUris(
          [discussionUri(WS, "01J0000000000000000000000A"), uris[0]],
          claude,
          () => {},
        ),
      /at most 3 listeners \(NOTICE_LISTENERS_MAX\)/,
    );
    assert.equal(bus.listeners(), 2);
    stop();
    assert.equal(bus.listeners(), 0);
  } finally {
    for (const c of clients) await c.close();
    await here.shutdown();
    kv.close();
    await child.close();
    await file.cleanup();
  }
});
