/** Many sessions writing at once, over HTTP and across processes sharing one KV file. */

import assert from "node:assert/strict";
import { focusKey } from "../src/focus/store_keys.ts";
import { call, connect, connectStdio, startServer, tempKvPath } from "./support/harness.ts";

Deno.test("100 add_task calls from 10 sessions at once: 100 tasks, none lost", async () => {
  const server = await startServer();
  try {
    const clients = await Promise.all(Array.from({ length: 10 }, () => connect(server, "http")));
    const ids = await Promise.all(
      clients.flatMap((client, s) =>
        Array.from({ length: 10 }, (_, i) =>
          call(client, "add_task", {
            project_id: "busy",
            body: `session ${s} task ${i}`,
            kind: i % 2 === 0 ? "cleanup" : "record",
          }).then((r) => {
            assert.equal(r.isError, false, r.text);
            return String(r.structured?.task_id);
          }))
      ),
    );
    assert.equal(new Set(ids).size, 100);
    const state = await call(clients[0], "get_state", { project_id: "busy" });
    const lines = state.text.split("\n").slice(3);
    assert.equal(lines.length, 100);
    for (let s = 0; s < 10; s++) {
      for (let i = 0; i < 10; i++) {
        const kind = i % 2 === 0 ? "cleanup" : "record";
        assert.ok(lines.includes(`  [${kind}] session ${s} task ${i}`), `session ${s} task ${i}`);
      }
    }
    await Promise.all(clients.map((c) => c.close()));
  } finally {
    await server.close();
  }
});

Deno.test("50 concurrent set_focus calls leave exactly one focus, one of the values written", async () => {
  const server = await startServer();
  try {
    const clients = await Promise.all(Array.from({ length: 10 }, () => connect(server, "http")));
    const written = Array.from({ length: 50 }, (_, i) => `focus number ${i}`);
    const results = await Promise.all(
      written.map((statement, i) =>
        call(clients[i % 10], "set_focus", { project_id: "race", statement, why: `why ${i}` })
      ),
    );
    assert.ok(results.every((r) => !r.isError));
    const foci = await Array.fromAsync(server.kv.list({ prefix: ["focus"] }));
    assert.equal(foci.length, 1);
    const stored = (await server.kv.get<{ statement: string; why: string }>(focusKey("race")))
      .value!;
    const i = written.indexOf(stored.statement);
    assert.ok(i >= 0, "the focus is one of the values written");
    assert.equal(stored.why, `why ${i}`, "statement and why come from the same write");
    const state = await call(clients[0], "get_state", { project_id: "race" });
    assert.equal(
      state.text.split("\n")[1],
      `▶ 本丸（今やる1つ）: ${stored.statement}（理由: why ${i}）`,
    );
    await Promise.all(clients.map((c) => c.close()));
  } finally {
    await server.close();
  }
});

Deno.test("two stdio processes and an HTTP server write one KV file at once, losing nothing", async () => {
  const kvFile = await tempKvPath();
  const server = await startServer({ env: { KV_PATH: kvFile.path } });
  try {
    const clients = [
      await connectStdio(kvFile.path),
      await connectStdio(kvFile.path),
      await connect(server, "http"),
    ];
    await Promise.all(
      clients.flatMap((client, c) =>
        Array.from(
          { length: 15 },
          (_, i) =>
            call(client, "add_task", { project_id: "shared", body: `p${c}-${i}`, kind: "record" })
              .then((r) => assert.equal(r.isError, false, r.text)),
        )
      ),
    );
    for (const client of clients) {
      const state = await call(client, "get_state", { project_id: "shared" });
      assert.equal(state.text.split("\n").length, 3 + 45);
    }
    await Promise.all(clients.map((c) => c.close()));
  } finally {
    await server.close();
    await kvFile.cleanup();
  }
});
