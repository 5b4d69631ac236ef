/**
 * A project created after a client connected must be findable by a client that read
 * `resources/list` once (Gemini CLI): sessions that can carry a notification (stdio, legacy SSE)
 * are told the list changed; stateless HTTP cannot carry one and says so.
 */

import assert from "node:assert/strict";
import {
  call,
  connect,
  connectStdio,
  spawnServer,
  startServer,
  tempKvPath,
} from "./support/harness.ts";
import { ResourceListChangedNotificationSchema } from "../src/client/sdk_client.ts";
import { ClientV2, StreamableHTTPClientTransportV2 } from "../src/client/sdk_client_v2.ts";
import { randomToken } from "../src/kit/ids.ts";

type Client = Awaited<ReturnType<typeof connect>>;

/** Counts the list_changed notifications `client` receives; `next()` waits for the next one. */
function listChanges(client: Client) {
  let count = 0;
  let wake: (() => void) | undefined;
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
    count++;
    wake?.();
  });
  return {
    get count() {
      return count;
    },
    next: (ms = 5000) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("no list_changed notification")), ms);
        wake = () => {
          clearTimeout(timer);
          wake = undefined;
          resolve();
        };
      }),
  };
}

/** The project state resources listed (the MCP Apps views are listed too). */
async function resourceNames(client: Client): Promise<string[]> {
  const { resources } = await client.listResources();
  return resources.filter((r) => r.uri.startsWith("handoff://projects/")).map((r) => r.name);
}

Deno.test("an SSE session is told when another client creates a project, once, and lists it", async () => {
  const server = await startServer();
  const sse = await connect(server, "sse");
  const http = await connect(server, "http");
  try {
    assert.equal(sse.getServerCapabilities()?.resources?.listChanged, true);
    assert.equal(http.getServerCapabilities()?.resources?.listChanged, false, "stateless HTTP");
    const changes = listChanges(sse);
    assert.deepEqual(await resourceNames(sse), []);
    const told = changes.next();
    const set = await call(http, "set_north_star", { project_id: "later", text: "Ship it" });
    assert.equal(set.isError, false, set.text);
    await told;
    assert.deepEqual(await resourceNames(sse), ["later"]);
    // Writes to a project that exists change no list: no more notices.
    await call(http, "set_focus", { project_id: "later", statement: "Now this" });
    await call(http, "add_task", { project_id: "later", body: "b", kind: "cleanup" });
    const another = changes.next();
    await call(http, "add_task", { project_id: "second", body: "first task", kind: "main" });
    await another;
    assert.equal(changes.count, 2);
    assert.deepEqual((await resourceNames(sse)).sort(), ["later", "second"]);
  } finally {
    await sse.close();
    await http.close();
    await server.close();
  }
});

Deno.test("a stdio session is told when it creates a project, before the call's answer", async () => {
  const kv = await tempKvPath();
  const client = await connectStdio(kv.path);
  try {
    assert.equal(client.getServerCapabilities()?.resources?.listChanged, true);
    const changes = listChanges(client);
    await call(client, "set_focus", { project_id: "p1", statement: "Do it" });
    assert.equal(changes.count, 1, "the notice is written before the answer");
    await call(client, "set_north_star", { project_id: "p1", text: "Ship" });
    assert.equal(changes.count, 1);
    assert.deepEqual(await resourceNames(client), ["p1"]);
  } finally {
    await client.close();
    await kv.cleanup();
  }
});

Deno.test({
  name: "a project created by another process reaches a stdio session and a 2026 listener, once",
  sanitizeResources: false,
  async fn() {
    const file = await tempKvPath();
    const token = randomToken(32);
    const other = await spawnServer({ KV_PATH: file.path, AUTH_TOKEN: token });
    const here = await spawnServer({ KV_PATH: file.path, AUTH_TOKEN: token, NOTICE_POLL_MS: "20" });
    const writer = await connect({ origin: other.origin, token }, "http");
    const stdio = await connectStdio(file.path, { NOTICE_POLL_MS: "20" });
    const modern = new ClientV2({ name: "v2-lists", version: "1.0.0" }, {
      versionNegotiation: { mode: { pin: "2026-07-28" } },
    });
    try {
      const changes = listChanges(stdio);
      await modern.connect(
        new StreamableHTTPClientTransportV2(new URL(`${here.origin}/${token}/mcp`)),
      );
      assert.equal(modern.getServerCapabilities()?.resources?.listChanged, true, "2026 says so");
      let heard = 0;
      modern.setNotificationHandler("notifications/resources/list_changed", () => void heard++);
      const sub = await modern.listen({ resourcesListChanged: true });
      assert.equal(sub.honoredFilter.resourcesListChanged, true);
      // Let both feeds take their first read of the topic before the write.
      await new Promise((r) => setTimeout(r, 200));
      const told = changes.next();
      await call(writer, "set_north_star", { project_id: "elsewhere", text: "Made there" });
      await told;
      for (let i = 0; i < 250 && heard === 0; i++) await new Promise((r) => setTimeout(r, 20));
      assert.equal(heard, 1, "the 2026 listener heard it");
      assert.deepEqual(await resourceNames(stdio), ["elsewhere"]);
      // A write to a project that exists changes no list.
      await call(writer, "set_focus", { project_id: "elsewhere", statement: "Next" });
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(changes.count, 1);
      assert.equal(heard, 1);
      await sub.close();
    } finally {
      await modern.close().catch(() => {});
      await stdio.close();
      await writer.close();
      await here.close();
      await other.close();
      await file.cleanup();
    }
  },
});

Deno.test("list_projects tells how to read a project's state, in text and structured content", async () => {
  const server = await startServer();
  const http = await connect(server, "http");
  try {
    await call(http, "set_north_star", { project_id: "p", text: "Ship" });
    const listed = await call(http, "list_projects");
    assert.match(listed.text, /get_state project_id=<id>.*handoff:\/\/projects\/<id>\/state/);
    assert.ok(
      (listed.structured.notes as string[]).some((n) =>
        n.includes("handoff://projects/<id>/state")
      ),
    );
    const read = await http.readResource({ uri: "handoff://projects/p/state" });
    assert.match(String((read.contents[0] as { text: string }).text), /Ship/);
  } finally {
    await http.close();
    await server.close();
  }
});
