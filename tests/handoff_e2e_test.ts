/**
 * The handoff toolset end to end: a real server on a free port, SDK clients over Streamable
 * HTTP, legacy SSE and stdio (a child process on the same KV file), and the JSON HTTP API.
 */

import assert from "node:assert/strict";
import { call, connect, connectStdio, startServer, tempKvPath } from "./support/harness.ts";

/** About 1 MiB of multi-byte text with every kind of line ending and fence, under the limit. */
function bigConversation(): string {
  const unit =
    "## User\r\n日本語 ünïcödé 🎌 ```\n\t\u0000\u2028\rlone CR\n## Assistant\n> quoted ~~~\n";
  const unitBytes = new TextEncoder().encode(unit).byteLength;
  // A leading byte order mark must survive too.
  return `\uFEFF${unit.repeat(Math.floor((1024 * 1024 - 3) / unitBytes))}`;
}

Deno.test("a handoff saved in a stdio client loads byte for byte in an HTTP and an SSE client", async () => {
  const kvFile = await tempKvPath();
  try {
    const conversation = bigConversation();
    const desktop = await connectStdio(kvFile.path);
    try {
      const saved = await call(desktop, "handoff_save", {
        key: "from-desktop",
        summary: "Design talk from Claude Desktop",
        conversation,
        from_ai: "Claude Desktop",
        next_action: "Implement the store",
      });
      assert.equal(saved.isError, false, saved.text);
      assert.equal(saved.structured?.bytes, new TextEncoder().encode(conversation).byteLength);
    } finally {
      await desktop.close();
    }

    const server = await startServer({ env: { KV_PATH: kvFile.path } });
    try {
      for (const kind of ["http", "sse"] as const) {
        const code = await connect(server, kind);
        try {
          // A conversation this long comes in pages (RESULT_MAX_TOKENS): read on to the end.
          const parts: string[] = [];
          let args: Record<string, unknown> = { key: "from-desktop" };
          for (;;) {
            const loaded = await call(code, "handoff_load", args);
            assert.equal(loaded.isError, false, loaded.text);
            const part = loaded.structured?.conversation as string;
            assert.equal(loaded.structured?.next_action, "Implement the store");
            assert.ok(loaded.text.includes(part), "the text carries each page verbatim too");
            parts.push(part);
            if (!loaded.structured?.has_more) break;
            args = { key: "from-desktop", from_char: loaded.structured.next_from_char };
          }
          assert.ok(parts.length > 1, `${parts.length} pages`);
          assert.equal(parts.join(""), conversation, `exact over ${kind}`);
        } finally {
          await code.close();
        }
      }
      const api = await fetch(`${server.origin}/${server.token}/api/handoffs/from-desktop`);
      assert.equal((await api.json()).conversation, conversation, "and over the JSON API");
    } finally {
      await server.close();
    }
  } finally {
    await kvFile.cleanup();
  }
});

Deno.test("a stdio process and an HTTP server append to one handoff at once and lose nothing", async () => {
  const kvFile = await tempKvPath();
  const server = await startServer({ env: { KV_PATH: kvFile.path } });
  const stdio = await connectStdio(kvFile.path);
  const http = await connect(server, "http");
  try {
    const saved = await call(http, "handoff_save", {
      key: "shared",
      summary: "s",
      conversation: "## User\nstart\n",
    });
    assert.equal(saved.isError, false, saved.text);
    const piece = (who: string, i: number) => `## Assistant\n${who} ${i}\n`;
    const results = await Promise.all([
      ...Array.from(
        { length: 25 },
        (_, i) => call(stdio, "handoff_append", { key: "shared", chunk: piece("stdio", i) }),
      ),
      ...Array.from(
        { length: 25 },
        (_, i) => call(http, "handoff_append", { key: "shared", chunk: piece("http", i) }),
      ),
    ]);
    for (const r of results) assert.equal(r.isError, false, r.text);
    const loaded = await call(http, "handoff_load", { key: "shared" });
    const text = String(loaded.structured?.conversation);
    for (let i = 0; i < 25; i++) {
      assert.ok(text.includes(piece("stdio", i)), `stdio ${i}`);
      assert.ok(text.includes(piece("http", i)), `http ${i}`);
    }
    assert.equal(loaded.structured?.message_count, 51);
  } finally {
    await http.close();
    await stdio.close();
    await server.close();
    await kvFile.cleanup();
  }
});

Deno.test("50 concurrent saves over Streamable HTTP at the limit evict exactly one each", async () => {
  const server = await startServer({ env: { HANDOFF_MAX_COUNT: "10" } });
  const client = await connect(server, "http");
  try {
    for (let i = 0; i < 10; i++) {
      await call(client, "handoff_save", {
        key: `seed-${i}`,
        summary: "s",
        conversation: "## User\nx",
      });
    }
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        call(client, "handoff_save", {
          key: `new-${i}`,
          summary: "s",
          conversation: `## User\n${i}`,
        })),
    );
    const victims = results.map((r) => {
      assert.equal(r.isError, false, r.text);
      const evicted = r.structured?.evicted as { key: string } | null;
      assert.ok(evicted, "every save into the full store names its victim");
      assert.match(r.text, new RegExp(`EVICTED to make room.*"${evicted.key}"`));
      return evicted.key;
    });
    assert.equal(new Set(victims).size, 50);
    const stats = await call(client, "handoff_stats");
    assert.equal(stats.structured?.count, 10);
  } finally {
    await client.close();
    await server.close();
  }
});

Deno.test("progress notifications reach a Streamable HTTP client during a large save and merge", async () => {
  const server = await startServer();
  const client = await connect(server, "http");
  try {
    const seen: number[] = [];
    const onprogress = (p: { progress: number }) => void seen.push(p.progress);
    const conversation = "## User\n" + "ü".repeat(240_000);
    await client.callTool(
      { name: "handoff_save", arguments: { key: "a", summary: "s", conversation } },
      undefined,
      { onprogress },
    );
    assert.ok(seen.length >= 3, `save: ${seen.length} notifications`);
    seen.length = 0;
    await call(client, "handoff_save", { key: "b", summary: "s", conversation });
    const merged = await client.callTool(
      { name: "handoff_merge", arguments: { keys: ["a", "b"], new_key: "ab" } },
      undefined,
      { onprogress },
    );
    assert.notEqual(merged.isError, true);
    assert.ok(seen.length >= 4, `merge: ${seen.length} notifications`);
    for (let i = 1; i < seen.length; i++) assert.ok(seen[i] > seen[i - 1]);
  } finally {
    await client.close();
    await server.close();
  }
});

Deno.test("the JSON API and the MCP tools share one store", async () => {
  const server = await startServer();
  const client = await connect(server, "http");
  const base = `${server.origin}/${server.token}/api`;
  try {
    const res = await fetch(`${base}/handoffs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        key: "scripted",
        summary: "Saved by a script",
        conversation: "## User\nfrom curl\n",
        tags: ["ci"],
      }),
    });
    assert.equal(res.status, 201);
    await res.body?.cancel();
    const loaded = await call(client, "handoff_load", { key: "scripted" });
    assert.equal(loaded.structured?.conversation, "## User\nfrom curl\n");
    await call(client, "handoff_add_comment", { key: "scripted", content: "seen by MCP" });
    const viaApi = await (await fetch(`${base}/handoffs/scripted`)).json();
    assert.equal(viaApi.comments[0].content, "seen by MCP");
    const del = await fetch(`${base}/handoffs/scripted`, { method: "DELETE" });
    assert.equal(del.status, 200);
    await del.body?.cancel();
    const after = await call(client, "handoff_load", { key: "scripted" });
    assert.equal(after.isError, true);
    const unauthorised = await fetch(`${server.origin}/wrong-token/api/handoffs`);
    assert.equal(unauthorised.status, 404);
    await unauthorised.body?.cancel();
  } finally {
    await client.close();
    await server.close();
  }
});
