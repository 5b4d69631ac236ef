/** The legacy HTTP+SSE transport's own behaviour: endpoint event, keep-alive, dropped clients. */

import assert from "node:assert/strict";
import { startServer } from "./support/harness.ts";

/** Reads SSE text from `reader` until `pattern` appears. */
async function readUntil(
  reader: ReadableStreamDefaultReader<string>,
  pattern: RegExp,
): Promise<string> {
  let text = "";
  while (!pattern.test(text)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`stream ended before ${pattern}: ${text}`);
    text += value;
  }
  return text;
}

Deno.test("the SSE stream announces its endpoint, sends keep-alives, and answers over the stream", async () => {
  const server = await startServer({ env: { SSE_KEEPALIVE_MS: "100" } });
  const abort = new AbortController();
  try {
    const res = await fetch(`${server.origin}/${server.token}/sse`, { signal: abort.signal });
    assert.equal(res.headers.get("content-type"), "text/event-stream");
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    const first = await readUntil(reader, /event: endpoint\ndata: (\S+)\n\n/);
    const endpoint = first.match(/data: (\S+)/)![1];
    assert.match(endpoint, new RegExp(`^/${server.token}/messages\\?sessionId=[0-9a-f-]{36}$`));
    await readUntil(reader, /: keep-alive\n\n/);

    const posted = await fetch(`${server.origin}${endpoint}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "ping" }),
    });
    assert.equal(posted.status, 202);
    await posted.body?.cancel();
    await readUntil(reader, /event: message\ndata: \{"result":\{\},"jsonrpc":"2.0","id":7\}\n\n/);

    const bad = await fetch(`${server.origin}${endpoint}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{not json",
    });
    assert.equal(bad.status, 400);
    await bad.body?.cancel();
    abort.abort();
  } finally {
    await server.close();
  }
});

Deno.test("a dropped SSE client closes its session", async () => {
  const server = await startServer();
  try {
    const abort = new AbortController();
    const res = await fetch(`${server.origin}/${server.token}/sse`, { signal: abort.signal });
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    const endpoint = (await readUntil(reader, /data: \S+\n\n/)).match(/data: (\S+)/)![1];
    abort.abort();
    const post = () =>
      fetch(`${server.origin}${endpoint}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
      }).then(async (r) => {
        await r.body?.cancel();
        return r.status;
      });
    const deadline = Date.now() + 5000;
    let status = await post();
    while (status !== 404 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      status = await post();
    }
    assert.equal(status, 404, "the session is gone once its client dropped");
  } finally {
    await server.close();
  }
});

Deno.test("an SSE message POST for an unknown session gets 404", async () => {
  const server = await startServer();
  try {
    const res = await fetch(`${server.origin}/${server.token}/messages?sessionId=nope`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    assert.equal(res.status, 404);
    assert.match(await res.text(), /Session not found/);
  } finally {
    await server.close();
  }
});

Deno.test("?toolsets= narrows the tools on /sse as on /mcp, and an unknown one is refused", async () => {
  const server = await startServer();
  try {
    for (const path of ["sse", "mcp"]) {
      const res = await fetch(`${server.origin}/${server.token}/${path}?toolsets=nope`, {
        method: path === "mcp" ? "POST" : "GET",
      });
      assert.equal(res.status, 400);
      assert.match(await res.text(), /unknown toolset \\"nope\\"/);
    }
  } finally {
    await server.close();
  }
});

Deno.test("an SSE message POST that is not JSON or over MAX_REQUEST_BYTES is refused, naming what is allowed", async () => {
  const server = await startServer({ env: { MAX_REQUEST_BYTES: "1024" } });
  const abort = new AbortController();
  try {
    const res = await fetch(`${server.origin}/${server.token}/sse`, { signal: abort.signal });
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    const endpoint = (await readUntil(reader, /data: \S+\n\n/)).match(/data: (\S+)/)![1];
    const post = async (type: string, body: string) => {
      const r = await fetch(`${server.origin}${endpoint}`, {
        method: "POST",
        headers: { "content-type": type },
        body,
      });
      return `${r.status} ${await r.text()}`;
    };
    const ping = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
    assert.equal(await post("text/plain", ping), "415 Content-Type must be application/json");
    assert.equal(
      await post("application/json", JSON.stringify([{ pad: "x".repeat(2000) }])),
      "413 Request body is larger than 1024 bytes (MAX_REQUEST_BYTES)",
    );
    assert.equal(await post("application/json; charset=utf-8", ping), "202 Accepted");
    abort.abort();
  } finally {
    await server.close();
  }
});
