/**
 * Resource subscriptions on the sessions that carry notifications: 2025 `resources/subscribe`
 * over legacy SSE and over stdio, and a 2026 `subscriptions/listen` over stdio. The stdio
 * servers are `main.ts --stdio` children and the poster is an HTTP server process on the same
 * KV file, so every notice here crosses processes.
 */

import assert from "node:assert/strict";
import { randomToken } from "../src/kit/ids.ts";
import { Client, ResourceUpdatedNotificationSchema } from "../src/client/sdk_client.ts";
import { ClientV2, StdioClientTransportV2 } from "../src/client/sdk_client_v2.ts";
import { discussionUri, waitingUri } from "../src/table/tools_resources.ts";
import {
  call,
  connect,
  connectStdio,
  ROOT,
  spawnServer,
  startServer,
  tempKvPath,
} from "./support/harness.ts";
import { type Heard, heardUntil } from "./support/heard.ts";

const WS = "acme/app";

function recordUpdates(client: InstanceType<typeof Client>): Heard {
  const heard: Heard = [];
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    heard.push(n.params.uri);
  });
  return heard;
}

/** A discussion made by `poster`, and its URI. */
async function discussion(poster: InstanceType<typeof Client>): Promise<[string, string]> {
  const d = await call(poster, "create_discussion", { title: "T", body: "one", workspace: WS });
  const id = (d.structured.discussion as { id: string }).id;
  return [id, discussionUri(WS, id)];
}

Deno.test("an SSE session subscribes, hears posts and its own handoffs, and unsubscribes", async () => {
  const server = await startServer({ env: { TOOLSETS: "table" } });
  const listener = await connect(server, "sse", { "x-client-name": "claude" });
  const poster = await connect(server, "http", { "x-client-name": "poster" });
  try {
    assert.equal(listener.getServerCapabilities()?.resources?.subscribe, true);
    const heard = recordUpdates(listener);
    const [id, uri] = await discussion(poster);
    await listener.subscribeResource({ uri });
    await listener.subscribeResource({ uri }); // twice: still one notice per change
    await listener.subscribeResource({ uri: waitingUri(WS) });
    await call(poster, "post_message", { discussion_id: id, body: "two" });
    await heardUntil(heard, [uri], "a post");
    const task = await call(poster, "create_task", { title: "Do", workspace: WS });
    const taskId = (task.structured.task as { id: string }).id;
    await call(poster, "create_handoff", { task_id: taskId, to: "manus", context: "not yours" });
    await call(poster, "create_handoff", { task_id: taskId, to: "claude", context: "yours" });
    await heardUntil(heard, [uri, waitingUri(WS)], "claude's handoff, not manus's");

    await assert.rejects(
      () => listener.subscribeResource({ uri: "handoff://nowhere" }),
      /Cannot listen to handoff:\/\/nowhere: the resources that tell of changes are/,
    );
    // Stateless 2025 HTTP cannot carry a notice: the refusal says where subscriptions work.
    await assert.rejects(
      () => poster.subscribeResource({ uri }),
      /needs a session that carries notifications.*subscriptions\/listen.*\/sse.*stdio/,
    );
    await listener.unsubscribeResource({ uri });
    await call(poster, "post_message", { discussion_id: id, body: "three" });
    await call(poster, "update_task", { task_id: taskId, status: "done" });
    await heardUntil(heard, [uri, waitingUri(WS), waitingUri(WS)], "unsubscribed from the post");
  } finally {
    await listener.close();
    await poster.close();
    await server.close();
  }
});

Deno.test({
  name: "stdio hears a post made by another process: 2025 resources/subscribe and 2026 listen",
  sanitizeResources: false,
  async fn() {
    const file = await tempKvPath();
    const token = randomToken(32);
    const http = await spawnServer({ KV_PATH: file.path, AUTH_TOKEN: token, TOOLSETS: "table" });
    const env = { NOTICE_POLL_MS: "20", CLIENT_NAME: "claude", TOOLSETS: "table" };
    const poster = await connect({ origin: http.origin, token }, "http", {
      "x-client-name": "poster",
    });
    const legacy = await connectStdio(file.path, env);
    const modern = new ClientV2({ name: "v2-stdio", version: "1.0.0" }, {
      versionNegotiation: { mode: { pin: "2026-07-28" } },
    });
    try {
      const [id, uri] = await discussion(poster);
      const heard = recordUpdates(legacy);
      await legacy.subscribeResource({ uri });

      await modern.connect(
        new StdioClientTransportV2({
          command: Deno.execPath(),
          args: ["run", "--allow-env", "--allow-read", "--allow-write", "main.ts", "--stdio"],
          cwd: ROOT,
          env: { ...Deno.env.toObject(), KV_PATH: file.path, NO_COLOR: "1", ...env },
          stderr: "pipe",
        }),
      );
      const heard26: Heard = [];
      modern.setNotificationHandler("notifications/resources/updated", (n) => {
        heard26.push(n.params.uri);
      });
      const sub = await modern.listen({ resourceSubscriptions: [uri, waitingUri(WS)] });
      assert.deepEqual(sub.honoredFilter.resourceSubscriptions, [uri, waitingUri(WS)]);
      await assert.rejects(
        () => modern.listen({ resourceSubscriptions: ["handoff://nowhere"] }),
        /Cannot listen to handoff:\/\/nowhere/,
      );

      await call(poster, "post_message", { discussion_id: id, body: "two" });
      await heardUntil(heard, [uri], "stdio 2025");
      await heardUntil(heard26, [uri], "stdio 2026");
      const task = await call(poster, "create_task", { title: "Do", workspace: WS });
      await call(poster, "create_handoff", {
        task_id: (task.structured.task as { id: string }).id,
        to: "claude",
        context: "yours",
      });
      await heardUntil(heard26, [uri, waitingUri(WS)], "stdio 2026, claude's waiting items");
      const read = await modern.readResource({ uri });
      assert.match((read.contents[0] as { text: string }).text, /two/);

      // A cancelled listen stops; the connection stays.
      await sub.close();
      await call(poster, "post_message", { discussion_id: id, body: "three" });
      await heardUntil(heard, [uri, uri], "stdio 2025 still subscribed");
      assert.deepEqual(heard26, [uri, waitingUri(WS)], "nothing after the listen closed");
    } finally {
      await modern.close().catch(() => {});
      await legacy.close();
      await poster.close();
      await http.close();
      await file.cleanup();
    }
  },
});
