/**
 * The listening path's delivery rule on a connection: listeners are told a macrotask after a
 * write, but a session that made the change itself hears it before its call's answer (legacy SSE
 * here; stdio in tests/resource_list_changed_test.ts), and one URI named by several
 * subscriptions is told once.
 */

import assert from "node:assert/strict";
import { ResourceUpdatedNotificationSchema } from "../src/client/sdk_client.ts";
import { discussionUri } from "../src/table/tools_resources.ts";
import { call, connect, startServer } from "./support/harness.ts";

const WS = "acme/order";

Deno.test("an SSE session hears its own post before the call's answer, once", async () => {
  const server = await startServer({ env: { TOOLSETS: "table" } });
  const sse = await connect(server, "sse", { "x-client-name": "claude" });
  try {
    const d = await call(sse, "create_discussion", { title: "T", body: "one", workspace: WS });
    const uri = discussionUri(WS, (d.structured.discussion as { id: string }).id);
    const heard: string[] = [];
    sse.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      heard.push(n.params.uri);
    });
    await sse.subscribeResource({ uri });
    await sse.subscribeResource({ uri });
    const id = (d.structured.discussion as { id: string }).id;
    await call(sse, "post_message", { discussion_id: id, body: "two" });
    assert.deepEqual(heard, [uri], "told before the answer, once for two subscriptions");
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(heard, [uri], "and not again later");
  } finally {
    await sse.close();
    await server.close();
  }
});
