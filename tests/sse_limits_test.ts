/** Legacy SSE sessions are bounded: a cap per process and an idle timeout. */

import assert from "node:assert/strict";
import { startServer } from "./support/harness.ts";

/** An open SSE stream: its message endpoint and a way to read or drop it. */
async function openStream(url: string) {
  const abort = new AbortController();
  const res = await fetch(url, { signal: abort.signal });
  if (res.status !== 200) {
    await res.body?.cancel();
    throw new Error(`SSE GET answered ${res.status}`);
  }
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!/data: \S+\n\n/.test(text)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`stream ended before its endpoint: ${text}`);
    text += value;
  }
  return {
    endpoint: text.match(/data: (\S+)/)![1],
    /** Reads until the server ends the stream; returns what came after the endpoint. */
    async drain(): Promise<string> {
      let rest = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return rest;
        rest += value;
      }
    },
    // Aborting alone may leave the socket open while the body is piped; cancelling the reader
    // closes it, as a client process that exits would.
    drop: () => {
      abort.abort();
      reader.cancel().catch(() => {});
    },
  };
}

async function ping(origin: string, endpoint: string, id: number): Promise<number> {
  const res = await fetch(`${origin}${endpoint}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id, method: "ping" }),
  });
  await res.body?.cancel();
  return res.status;
}

Deno.test("past SSE_MAX_SESSIONS the next SSE GET gets 503 with a clear body; a closed one frees a place", async () => {
  // A dropped client is noticed when the server next writes to it: keep-alives make that soon.
  const server = await startServer({ env: { SSE_MAX_SESSIONS: "2", SSE_KEEPALIVE_MS: "100" } });
  const url = `${server.origin}/${server.token}/sse`;
  try {
    const a = await openStream(url);
    const b = await openStream(url);
    const refused = await fetch(url);
    assert.equal(refused.status, 503);
    assert.match(await refused.text(), /at most 2 .*\(SSE_MAX_SESSIONS\).*Streamable HTTP/);
    a.drop();
    const deadline = Date.now() + 5000;
    let c: Awaited<ReturnType<typeof openStream>> | undefined;
    while (!c && Date.now() < deadline) {
      c = await openStream(url).catch(() => undefined);
      if (!c) await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(c, "a place frees up once a client drops its stream");
    b.drop();
    c.drop();
  } finally {
    await server.close();
  }
});

Deno.test("an SSE session idle past SSE_IDLE_MS is closed; one that keeps posting stays open", async () => {
  const server = await startServer({ env: { SSE_IDLE_MS: "300", SSE_KEEPALIVE_MS: "100" } });
  const url = `${server.origin}/${server.token}/sse`;
  try {
    // Timed from before the idle stream opens: on a loaded machine opening the second one can
    // take a while, and the idle timer of the first is already running.
    const started = Date.now();
    const idle = await openStream(url);
    const busy = await openStream(url);
    const ended = idle.drain();
    let id = 0;
    let closed = false;
    void ended.then(() => closed = true);
    while (!closed && Date.now() - started < 10_000) {
      assert.equal(await ping(server.origin, busy.endpoint, ++id), 202);
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(closed, "the idle session's stream was ended by the server");
    assert.ok(Date.now() - started >= 250, "not before SSE_IDLE_MS");
    assert.match(await ended, /keep-alive/, "keep-alives were sent but did not count as activity");
    assert.equal(await ping(server.origin, idle.endpoint, ++id), 404);
    assert.equal(await ping(server.origin, busy.endpoint, ++id), 202);
    busy.drop();
  } finally {
    await server.close();
  }
});
