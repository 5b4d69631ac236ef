/**
 * Stateless Streamable HTTP as raw POSTs: one shared server answers every client, so ids, batches
 * and answer formats must come back exactly as each client sent them.
 */

import assert from "node:assert/strict";
import { startServer, type TestServer } from "./support/harness.ts";

const HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2025-06-18",
};

function post(server: TestServer, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${server.origin}/${server.token}/mcp`, {
    method: "POST",
    headers: { ...HEADERS, ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

async function withServer(fn: (server: TestServer) => Promise<void>): Promise<void> {
  const server = await startServer();
  try {
    await fn(server);
  } finally {
    await server.close();
  }
}

Deno.test("concurrent POSTs with the same request id each get their own answer", () =>
  withServer(async (server) => {
    const answers = await Promise.all(Array.from({ length: 20 }, async (_, i) => {
      const res = await post(server, {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "get_state", arguments: { project_id: `project-${i}` } },
      });
      assert.equal(res.status, 200);
      return await res.json();
    }));
    answers.forEach((answer, i) => {
      assert.equal(answer.id, 1);
      assert.match(answer.result.content[0].text, /NORTH STAR/);
      assert.equal(answer.result.isError, undefined);
      assert.ok(
        !answers.some((other, j) => j !== i && other === answer),
        "every POST has its own answer",
      );
    });
    // Distinct arguments give distinct answers, so a mix-up would show.
    const ids = await Promise.all(Array.from({ length: 10 }, async (_, i) => {
      const res = await post(server, {
        jsonrpc: "2.0",
        id: "same",
        method: "tools/call",
        params: {
          name: "add_task",
          arguments: { project_id: `p${i}`, body: `task ${i}`, kind: "main" },
        },
      });
      const answer = await res.json();
      assert.equal(answer.id, "same");
      return answer.result.structuredContent.project_id;
    }));
    assert.deepEqual(ids, Array.from({ length: 10 }, (_, i) => `p${i}`));
  }));

Deno.test("plain JSON by default, an event stream when a request asks for progress", () =>
  withServer(async (server) => {
    const plain = await post(server, { jsonrpc: "2.0", id: 1, method: "ping" });
    assert.equal(plain.headers.get("content-type"), "application/json");
    assert.deepEqual(await plain.json(), { result: {}, jsonrpc: "2.0", id: 1 });

    // Batches are of 2025-03-26 (2025-06-18 removed them).
    const batched = { "mcp-protocol-version": "2025-03-26" };
    const batch = await post(server, [
      { jsonrpc: "2.0", id: "b", method: "ping" },
      { jsonrpc: "2.0", id: "a", method: "ping" },
    ], batched);
    assert.deepEqual((await batch.json()).map((r: { id: string }) => r.id), ["b", "a"]);

    const progress = await post(server, [
      { jsonrpc: "2.0", id: 2, method: "ping" },
      { jsonrpc: "2.0", id: 3, method: "ping", params: { _meta: { progressToken: "p" } } },
    ], batched);
    assert.equal(progress.headers.get("content-type"), "text/event-stream");
    const events = (await progress.text()).split("\n\n").filter((e) => e !== "");
    assert.deepEqual(
      events.map((e) => JSON.parse(e.replace(/^event: message\ndata: /, "")).id).sort(),
      [2, 3],
    );
  }));

Deno.test("a 2025-03-26 batch calling one tool twice answers both; later 2025 revisions refuse batches", () =>
  withServer(async (server) => {
    const call = (id: number, project: string) => ({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "get_state", arguments: { project_id: project } },
    });
    const twice = [call(1, "batch-a"), call(2, "batch-b"), {
      jsonrpc: "2.0",
      id: 3,
      method: "ping",
    }];
    const versions: Record<string, string>[] = [{ "mcp-protocol-version": "2025-03-26" }, {}];
    for (const headers of versions) {
      const res = await fetch(`${server.origin}/${server.token}/mcp`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...headers,
        },
        body: JSON.stringify(twice),
      });
      assert.equal(res.status, 200, JSON.stringify(headers));
      const answers = await res.json() as {
        id: number;
        result: { isError?: boolean; content?: { text: string }[] };
      }[];
      assert.deepEqual(answers.map((a) => a.id).sort(), [1, 2, 3]);
      for (const id of [1, 2]) {
        const result = answers.find((a) => a.id === id)!.result;
        assert.equal(result.isError, undefined);
        assert.match(result.content![0].text, /NORTH STAR/);
      }
    }
    // One id twice: each request is still answered (the SDK's transport alone keeps one).
    const sameId = [call(7, "batch-a"), call(7, "batch-b"), {
      jsonrpc: "2.0",
      method: "notifications/initialized",
    }, { jsonrpc: "2.0", id: 7, method: "ping" }];
    const repeated = await post(server, sameId, { "mcp-protocol-version": "2025-03-26" });
    assert.equal(repeated.status, 200);
    const answers = await repeated.json() as { id: number; result: { content?: unknown[] } }[];
    assert.deepEqual(answers.map((a) => a.id), [7, 7, 7]);
    assert.equal(answers.filter((a) => a.result.content !== undefined).length, 2);
    for (const version of ["2025-06-18", "2025-11-25"]) {
      const res = await post(server, twice, { "mcp-protocol-version": version });
      assert.equal(res.status, 400, version);
      const answer = await res.json();
      assert.equal(answer.error.code, -32600);
      assert.match(answer.error.message, new RegExp(`protocol ${version} has no JSON-RPC batches`));
    }
  }));

Deno.test("a 2025-03-26 batch repeating an id is held to the SDK's 100-message limit too", () =>
  withServer(async (server) => {
    const ping = (id: number) => ({ jsonrpc: "2.0", id, method: "ping" });
    const v2025 = { "mcp-protocol-version": "2025-03-26" };
    // Unique ids go to the SDK's transport, repeated ones are answered one by one here: both
    // paths refuse 101 messages alike (one 4 MiB batch of 40,000 once took 2 GiB and 40 s).
    for (const ids of [[...Array(101).keys()], Array(101).fill(1)]) {
      const res = await post(server, ids.map(ping), v2025);
      assert.equal(res.status, 400);
      const answer = await res.json();
      assert.equal(answer.error.code, -32600);
      assert.match(answer.error.message, /Batch must not exceed 100 messages/);
    }
    const full = await post(server, Array(100).fill(1).map(ping), v2025);
    assert.equal(full.status, 200);
    assert.equal((await full.json()).length, 100);
  }));

Deno.test("malformed POSTs get the SDK transport's JSON-RPC errors and statuses", () =>
  withServer(async (server) => {
    const cases: [unknown, Record<string, string>, number, number][] = [
      ["{", {}, 400, -32700],
      [[], {}, 400, -32600],
      // Not a request (no method): SDK v2 says Invalid Request (v1 said Parse error).
      [{ jsonrpc: "2.0", id: 1 }, {}, 400, -32600],
      [
        { jsonrpc: "2.0", id: 1, method: "ping" },
        { "mcp-protocol-version": "1999-01-01" },
        400,
        -32000,
      ],
      [{ jsonrpc: "2.0", id: 1, method: "ping" }, { accept: "text/event-stream" }, 406, -32000],
      [{ jsonrpc: "2.0", id: 1, method: "ping" }, { "content-type": "text/plain" }, 415, -32000],
      [
        Array.from({ length: 101 }, (_, id) => ({ jsonrpc: "2.0", id, method: "ping" })),
        {},
        400,
        -32600,
      ],
    ];
    for (const [body, headers, status, code] of cases) {
      const res = await post(server, body, headers);
      assert.equal(res.status, status, JSON.stringify(body).slice(0, 80));
      assert.equal((await res.json()).error.code, code);
    }
    const notification = await post(server, {
      jsonrpc: "2.0",
      method: "notifications/initialized",
    });
    assert.equal(notification.status, 202);
    await notification.body?.cancel();
  }));
