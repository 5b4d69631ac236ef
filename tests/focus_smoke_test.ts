/** The seed's smoke scenario, over Streamable HTTP, SSE, and stdio sharing a KV file with HTTP. */

import assert from "node:assert/strict";
import type { Client } from "../src/client/sdk_client.ts";
import {
  call,
  connect,
  connectStdio,
  type HttpKind,
  startServer,
  tempKvPath,
} from "./support/harness.ts";

type McpClient = InstanceType<typeof Client>;

const PROJECT = "smoke-project";

const EXPECTED_AFTER_A = [
  "🎯 NORTH STAR: Ship handoff-mcp v1",
  "▶ 本丸（今やる1つ）: Write the focus store（理由: everything else builds on it）",
  "— 以下は後処理（北極星達成後・今は着手しない）—",
  "  [cleanup] Rename the temp variables",
  "  [record] Write down the KV key schema",
].join("\n");

const EXPECTED_AFTER_B = [
  "🎯 NORTH STAR: Ship handoff-mcp v1",
  "▶ 本丸（今やる1つ）: Write the focus store（理由: everything else builds on it）",
  "— 以下は後処理（北極星達成後・今は着手しない）—",
  "  [record] Write down the KV key schema",
].join("\n");

/** Session A writes everything; it returns the cleanup task's id. */
async function sessionA(a: McpClient): Promise<string> {
  const blank = await call(a, "set_north_star", { project_id: PROJECT, text: "  \t " });
  assert.equal(blank.isError, true);
  assert.match(blank.text, /must not be empty or whitespace-only/);
  const untouched = await call(a, "get_state", { project_id: PROJECT });
  assert.match(untouched.text, /^🎯 NORTH STAR: \(未設定\)$/m, "a refused write leaves nothing");

  const star = await call(a, "set_north_star", {
    project_id: PROJECT,
    text: "Ship handoff-mcp v1",
  });
  assert.equal(star.isError, false, star.text);
  assert.match(star.text, /^OK: /);
  const focus = await call(a, "set_focus", {
    project_id: PROJECT,
    statement: "Write the focus store",
    why: "everything else builds on it",
  });
  assert.equal(focus.isError, false, focus.text);
  const cleanup = await call(a, "add_task", {
    project_id: PROJECT,
    body: "Rename the temp variables",
    kind: "cleanup",
  });
  assert.equal(cleanup.isError, false, cleanup.text);
  assert.equal(cleanup.structured?.demoted, true);
  const record = await call(a, "add_task", {
    project_id: PROJECT,
    body: "Write down the KV key schema",
    kind: "record",
  });
  assert.equal(record.structured?.demoted, true);
  const main = await call(a, "add_task", {
    project_id: PROJECT,
    body: "Implement addTask",
    kind: "main",
  });
  assert.equal(main.structured?.demoted, false);
  assert.ok(!main.text.includes("Implement addTask"), "main tasks are never listed");
  return String(cleanup.structured?.task_id);
}

/** Session B, a separate client, sees A's state (not the main task) and completes the cleanup. */
async function sessionB(b: McpClient, cleanupId: string): Promise<void> {
  const state = await call(b, "get_state", { project_id: PROJECT });
  assert.equal(state.text, EXPECTED_AFTER_A);
  const done = await call(b, "complete_task", { task_id: cleanupId });
  assert.equal(done.isError, false, done.text);
  assert.ok(done.text.endsWith(EXPECTED_AFTER_B));
}

/** Session C sees the cleanup gone and the record still there. */
async function sessionC(c: McpClient): Promise<void> {
  const state = await call(c, "get_state", { project_id: PROJECT });
  assert.equal(state.text, EXPECTED_AFTER_B);
}

for (const kind of ["http", "sse"] as HttpKind[]) {
  Deno.test(`smoke scenario over ${kind === "http" ? "Streamable HTTP" : "legacy SSE"}`, async () => {
    const server = await startServer();
    try {
      const a = await connect(server, kind);
      const cleanupId = await sessionA(a);
      await a.close();
      const b = await connect(server, kind);
      await sessionB(b, cleanupId);
      await b.close();
      const c = await connect(server, kind);
      await sessionC(c);
      await c.close();
    } finally {
      await server.close();
    }
  });
}

Deno.test("smoke scenario across stdio and HTTP sharing one KV file", async () => {
  const kvFile = await tempKvPath();
  try {
    const a = await connectStdio(kvFile.path);
    const cleanupId = await sessionA(a);
    await a.close();

    const server = await startServer({ env: { KV_PATH: kvFile.path } });
    try {
      const b = await connect(server, "http");
      await sessionB(b, cleanupId);
      await b.close();
    } finally {
      await server.close();
    }

    // No server runs now: a new stdio process reads the same file.
    const c = await connectStdio(kvFile.path);
    await sessionC(c);
    await c.close();
  } finally {
    await kvFile.cleanup();
  }
});
