/**
 * Large writes over a real server are admitted up to WRITE_BUDGET_BYTES in flight (issue 23
 * case 9): concurrent large saves in both MCP eras are all stored whole when they can wait their
 * turn, and one that finds the budget held past WRITE_WAIT_MS is refused with a clear busy error
 * before its body is read, writing nothing, while small requests pass.
 */

import assert from "node:assert/strict";
import { call, connect, startServer } from "./support/harness.ts";

const MODERN = "2026-07-28";

/** About `bytes` of conversation, distinct per `i`. */
function conversation(i: number, bytes: number): string {
  const unit = `## User\n\nQuestion ${i} — 日本語\n\n## Assistant\n\nAnswer ${i}.\n\n`;
  return unit.repeat(Math.ceil(bytes / new TextEncoder().encode(unit).length));
}

/** A raw `handoff_save` POST, 2025-era or 2026-07-28, with `body` as given (a stream: chunked). */
function savePost(
  url: string,
  i: number,
  modern: boolean,
  body?: ReadableStream<Uint8Array>,
): { request: Promise<Response>; json: string } {
  const params: Record<string, unknown> = {
    name: "handoff_save",
    arguments: { key: `big-${i}`, summary: "admission", conversation: conversation(i, 150_000) },
  };
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": modern ? MODERN : "2025-06-18",
  };
  if (modern) {
    params._meta = {
      "io.modelcontextprotocol/protocolVersion": MODERN,
      "io.modelcontextprotocol/clientCapabilities": {},
      "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
    };
    headers["mcp-method"] = "tools/call";
    headers["mcp-name"] = "handoff_save";
  }
  const json = JSON.stringify({ jsonrpc: "2.0", id: i, method: "tools/call", params });
  return { request: fetch(url, { method: "POST", headers, body: body ?? json }), json };
}

/** A handoff's conversation read page by page (results keep RESULT_MAX_TOKENS). */
async function loadWhole(client: Parameters<typeof call>[0], key: string): Promise<string> {
  let text = "";
  let from: number | undefined;
  for (;;) {
    const page = await call(
      client,
      "handoff_load",
      from === undefined ? { key } : { key, from_char: from },
    );
    text += page.structured?.conversation as string;
    if (!page.structured?.has_more) return text;
    from = page.structured.next_from_char as number;
  }
}

/** The JSON-RPC message of a response, plain JSON or the one event of a stream. */
async function rpcOf(response: Response): Promise<Record<string, unknown>> {
  const text = await response.text();
  return JSON.parse(text.startsWith("{") ? text : text.split("data: ")[1]);
}

Deno.test("concurrent large saves in both eras are admitted in turn and all stored whole", async () => {
  // Room for one 150 KB save at a time: the other eleven wait their turn.
  // A long wait: under a loaded machine the last in line must still get its turn.
  const server = await startServer({
    env: { WRITE_BUDGET_BYTES: "262144", WRITE_WAIT_MS: "300000" },
  });
  try {
    const url = `${server.origin}/${server.token}/mcp`;
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => savePost(url, i, i % 2 === 1).request.then(rpcOf)),
    );
    for (const answer of answers) {
      const result = answer.result as { isError?: boolean } | undefined;
      assert.ok(result && !result.isError, JSON.stringify(answer).slice(0, 300));
    }
    const client = await connect(server, "http");
    try {
      for (let i = 0; i < 12; i++) {
        assert.equal(
          await loadWhole(client, `big-${i}`),
          conversation(i, 150_000),
          `big-${i} whole`,
        );
      }
    } finally {
      await client.close();
    }
  } finally {
    await server.close();
  }
});

Deno.test("a large save that finds the write budget held is refused busy after WRITE_WAIT_MS, writing nothing", async () => {
  const server = await startServer({
    env: { WRITE_BUDGET_BYTES: "262144", WRITE_WAIT_MS: "300" },
  });
  try {
    const url = `${server.origin}/${server.token}/mcp`;
    // A chunked body counts as MAX_REQUEST_BYTES: it holds the whole budget while it trickles.
    let push!: ReadableStreamDefaultController<Uint8Array>;
    const held = savePost(
      url,
      0,
      false,
      new ReadableStream({ start: (controller) => void (push = controller) }),
    );
    const bytes = new TextEncoder().encode(held.json);
    push.enqueue(bytes.subarray(0, 1000));
    await new Promise((resolve) => setTimeout(resolve, 200));

    for (const modern of [false, true]) {
      const refused = await savePost(url, modern ? 2 : 1, modern).request;
      assert.equal(refused.status, 503);
      assert.equal(refused.headers.get("retry-after"), "1");
      const body = await refused.json();
      assert.equal(body.error.code, -32000);
      assert.match(
        body.error.message,
        /^Server busy: other large writes fill WRITE_BUDGET_BYTES \(262144 bytes in flight\); this request of \d+ bytes waited WRITE_WAIT_MS \(300 ms\) and was not read\. Nothing was written: retry in a moment\.$/,
      );
    }
    // A body over MAX_REQUEST_BYTES never waits for room: it is refused unread at once.
    const oversized = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: "x".repeat(4 * 1024 * 1024 + 1),
    });
    assert.equal(oversized.status, 413);
    assert.match((await oversized.json()).error.message, /MAX_REQUEST_BYTES/);
    // Small requests never wait for the budget.
    const client = await connect(server, "http");
    try {
      const small = await call(client, "handoff_save", {
        key: "small",
        summary: "s",
        conversation: "## User\n\nhi\n\n",
      });
      assert.ok(!small.isError, small.text);
      push.enqueue(bytes.subarray(1000));
      push.close();
      const stored = await rpcOf(await held.request);
      assert.ok(!(stored.result as { isError?: boolean }).isError, "the held save completes");
      assert.equal(await loadWhole(client, "big-0"), conversation(0, 150_000));
      for (const key of ["big-1", "big-2"]) {
        const missing = await call(client, "handoff_load", { key });
        assert.ok(missing.isError, `${key} was never written`);
      }
    } finally {
      await client.close();
    }
  } finally {
    await server.close();
  }
});
