/**
 * An unnamed client is never the owner (issue 23, case 7): it is `anonymous`, and a handoff
 * addressed to the owner is accepted only by the owner: in the console, not by whoever connected
 * without a name or wrote the owner's name in a header.
 */

import assert from "node:assert/strict";
import { call, connect, startServer } from "./support/harness.ts";
import { fetchSignIn, seededConsole } from "./support/console.ts";

Deno.test("a client that names nobody is anonymous, not the owner", async () => {
  const server = await startServer();
  try {
    const client = await connect(server, "http");
    try {
      const c = await call(client, "get_workspace_context", {});
      assert.equal(c.isError, false, c.text);
      const you = c.structured.you_are as { name: string; via: string };
      assert.deepEqual([you.name, you.via], ["anonymous", "default"]);
    } finally {
      await client.close();
    }
  } finally {
    await server.close();
  }
});

Deno.test("a handoff to the owner: refused to an unnamed client and to a header claiming the name; the console accepts it", async () => {
  const seeded = await seededConsole(); // OWNER_NAME Ada; a handoff to "ada"
  const { server } = seeded;
  const unnamed = await connect(server, "http");
  const claiming = await connect(server, "http", { "x-client-name": "Ada" });
  try {
    for (const client of [unnamed, claiming]) {
      const r = await call(client, "accept_handoff", { handoff_id: seeded.handoffId });
      assert.equal(r.isError, true, r.text);
      assert.match(r.text, /owner_only: .*only the owner accepts it: in the owner console/);
    }
    const still = await call(unnamed, "get_handoffs", { to: "ada" });
    assert.equal((still.structured.handoffs as { state: string }[])[0].state, "waiting");

    const s = await fetchSignIn(server.origin);
    const res = await fetch(`${server.origin}/console/handoffs/${seeded.handoffId}`, {
      method: "POST",
      redirect: "manual",
      headers: { cookie: s.cookie, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrf: s.csrf, action: "accept" }),
    });
    await res.body?.cancel();
    assert.equal(res.status, 303);
    const after = await call(unnamed, "get_handoffs", { to: "ada" });
    const h = (after.structured.handoffs as { accepted_by: unknown }[])[0];
    assert.deepEqual(h.accepted_by, { name: "Ada", via: "console" });
  } finally {
    await unnamed.close();
    await claiming.close();
    await server.close();
  }
});
