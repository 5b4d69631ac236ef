/**
 * The console on the process's notice bus: a person's post and decision made in the owner
 * console reach a 2026 `subscriptions/listen` and a legacy SSE `resources/subscribe` at once, on
 * a `KV_PATH=:memory:` server, where no feed follows KV and only the bus can tell them.
 */

import assert from "node:assert/strict";
import { ResourceUpdatedNotificationSchema } from "../src/client/sdk_client.ts";
import { ClientV2, StreamableHTTPClientTransportV2 } from "../src/client/sdk_client_v2.ts";
import { discussionUri } from "../src/table/tools_resources.ts";
import { CODEX, fetchSignIn, seededConsole } from "./support/console.ts";
import { connect } from "./support/harness.ts";
import { type Heard, heardUntil } from "./support/heard.ts";

Deno.test("a console post and decision are heard by a 2026 listen and an SSE subscription (:memory:)", async () => {
  const seeded = await seededConsole();
  const { server } = seeded;
  const uri = discussionUri("acme/shop", seeded.discussionId);
  const modern = new ClientV2({ name: "console-listener", version: "1.0.0" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
  });
  const sse = await connect({ origin: server.origin, token: CODEX }, "sse");
  try {
    await modern.connect(
      new StreamableHTTPClientTransportV2(new URL(`${server.origin}/${CODEX}/mcp`)),
    );
    const heard26: Heard = [];
    modern.setNotificationHandler("notifications/resources/updated", (n) => {
      heard26.push(n.params.uri);
    });
    await modern.listen({ resourceSubscriptions: [uri] });
    const heardSse: Heard = [];
    sse.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      heardSse.push(n.params.uri);
    });
    await sse.subscribeResource({ uri });

    const s = await fetchSignIn(server.origin);
    const post = async (path: string, fields: Record<string, string>) => {
      const res = await fetch(`${server.origin}${path}`, {
        method: "POST",
        redirect: "manual",
        headers: { cookie: s.cookie, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ csrf: s.csrf, ...fields }),
      });
      await res.body?.cancel();
      assert.equal(res.status, 303, path);
    };
    await post(`/console/discussions/${seeded.discussionId}`, { body: "From a person" });
    await heardUntil(heard26, [uri], "the 2026 listen hears the console's post");
    await heardUntil(heardSse, [uri], "the SSE session hears the console's post");
    // The decision's resolution is posted to its discussion as a note.
    await post(`/console/decisions/${seeded.decisionId}`, { verdict: "approve", reason: "ok" });
    await heardUntil(heard26, [uri, uri], "the 2026 listen hears the decision");
    await heardUntil(heardSse, [uri, uri], "the SSE session hears the decision");
  } finally {
    await modern.close().catch(() => {});
    await sse.close();
    await server.close();
  }
});
