/** Requests at the edge of HTTP and JSON-RPC: empty batches, no Host header. */

import assert from "node:assert/strict";
import { startServer } from "./support/harness.ts";

const MCP_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

/** The raw response to `request`, sent as is over a TCP socket. */
async function raw(origin: string, request: string): Promise<string> {
  const { hostname, port } = new URL(origin);
  const conn = await Deno.connect({ hostname, port: Number(port) });
  await conn.write(new TextEncoder().encode(request));
  return await new Response(conn.readable).text();
}

Deno.test("an empty JSON-RPC batch on /mcp is 400 Invalid Request, and nothing else changes", async () => {
  const server = await startServer();
  try {
    for (const body of ["[]", " [ \n ] "]) {
      const res = await fetch(`${server.origin}/${server.token}/mcp`, {
        method: "POST",
        headers: MCP_HEADERS,
        body,
      });
      assert.equal(res.status, 400);
      const answer = await res.json();
      assert.equal(answer.error.code, -32600);
      assert.match(answer.error.message, /Invalid Request: an empty batch/);
    }
    const bad = await fetch(`${server.origin}/${server.token}/mcp`, {
      method: "POST",
      headers: MCP_HEADERS,
      body: "[{",
    });
    assert.equal(bad.status, 400);
    assert.equal((await bad.json()).error.code, -32700);
    const ping = await fetch(`${server.origin}/${server.token}/mcp`, {
      method: "POST",
      headers: MCP_HEADERS,
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "ping" }),
    });
    assert.equal(ping.status, 200);
    assert.match(await ping.text(), /"id":7/);
    const tooLarge = await fetch(`${server.origin}/${server.token}/mcp`, {
      method: "POST",
      headers: MCP_HEADERS,
      body: JSON.stringify({ pad: "x".repeat(5 * 1024 * 1024) }),
    });
    assert.equal(tooLarge.status, 413);
    assert.match((await tooLarge.json()).error.message, /MAX_REQUEST_BYTES/);
  } finally {
    await server.close();
  }
});

Deno.test("a request without a Host header gets 400; the same with Host is served", async () => {
  const server = await startServer();
  try {
    const bare = await raw(server.origin, "GET /healthz HTTP/1.0\r\n\r\n");
    assert.match(bare, /^HTTP\/1\.[01] 400/);
    assert.match(bare, /Host header is missing/);
    const mcp = await raw(
      server.origin,
      `POST /${server.token}/mcp HTTP/1.0\r\nContent-Type: application/json\r\n` +
        `Accept: application/json, text/event-stream\r\nContent-Length: 2\r\n\r\n{}`,
    );
    assert.match(mcp, /^HTTP\/1\.[01] 400/);
    const host = new URL(server.origin).host;
    const ok = await raw(server.origin, `GET /healthz HTTP/1.0\r\nHost: ${host}\r\n\r\n`);
    assert.match(ok, /^HTTP\/1\.[01] 200/);
  } finally {
    await server.close();
  }
});

Deno.test("legacy SSE: an empty batch or a non-JSON-RPC body is 400 Invalid Request, as on /mcp", async () => {
  const server = await startServer();
  try {
    const stream = await fetch(`${server.origin}/${server.token}/sse`);
    const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
    const endpoint = (await reader.read()).value!.match(/data: (\S+)/)![1];
    // 101 messages: past the SDK's batch limit /mcp keeps (each costs a request in flight).
    const tooMany = JSON.stringify(
      Array.from({ length: 101 }, (_, i) => ({ jsonrpc: "2.0", id: i, method: "ping" })),
    );
    for (const body of ["[]", '{"hello":"world"}', '[{"jsonrpc":"2.0","id":1}]', tooMany]) {
      const res = await fetch(new URL(endpoint, server.origin), {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
      const what = body.slice(0, 40);
      assert.equal(res.status, 400, what);
      const answer = await res.json();
      assert.equal(answer.error.code, -32600, what);
      assert.match(answer.error.message, /^Invalid Request: /, what);
    }
    await reader.cancel();
  } finally {
    await server.close();
  }
});
