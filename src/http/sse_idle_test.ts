import assert from "node:assert/strict";
import { loadConfig } from "../config.ts";
import { createMcpServer, type Toolset } from "../mcp/server.ts";
import { withKv } from "../../tests/support/kv.ts";
import { INITIALIZED, initializeRequest } from "../../tests/support/rpc.ts";
import { SseSessions } from "./sse.ts";
import { authInfoOf, defaultCaller } from "../tools/caller.ts";

/** A toolset whose one tool takes `ms` to answer. */
function slowToolset(ms: number): Toolset {
  return {
    name: "slow",
    instructions: "One slow tool.",
    register(server) {
      server.registerTool("wait", { description: "Waits." }, async () => {
        await new Promise((r) => setTimeout(r, ms));
        return { content: [{ type: "text", text: "done" }] };
      });
    },
  };
}

Deno.test("SseSessions: a request still running is activity, so the idle timeout waits for its answer", async () => {
  await withKv(async (kv) => {
    const config = loadConfig(new Map());
    const deps = { kv, config, caller: defaultCaller(config) };
    const sse = new SseSessions({
      keepAliveMs: 60_000,
      maxRequestBytes: 1 << 20,
      maxSessions: 5,
      idleMs: 150,
      connect: (transport, toolsets) => createMcpServer(deps, toolsets).connect(transport),
    });
    const res = await sse.open("/messages", [slowToolset(600)]);
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = (await reader.read()).value!;
    const sessionId = text.match(/sessionId=(\S+)/)![1];
    const post = (message: unknown) =>
      sse.post(
        new Request("http://x/messages", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(message),
        }),
        sessionId,
        authInfoOf(defaultCaller(config)),
      );
    await post(initializeRequest(1, "2024-11-05"));
    await post(INITIALIZED);
    assert.equal(
      (await post({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "wait" } }))
        .status,
      202,
    );
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    assert.match(text, /"id":2/, "the slow answer came before the idle close");
    assert.match(text, /done/);
    const after = await post(INITIALIZED);
    assert.equal(after.status, 404, "then the idle session was closed");
    assert.match(await after.text(), /Session not found/);
  });
});

Deno.test("SseSessions: a message whose body arrives after shutdown began is refused, not run unanswered", async () => {
  await withKv(async (kv) => {
    const config = loadConfig(new Map());
    const deps = { kv, config, caller: defaultCaller(config) };
    let ran = 0;
    const counting: Toolset = {
      name: "count",
      instructions: "One counting tool.",
      register(server) {
        server.registerTool("bump", { description: "Counts." }, () => {
          ran++;
          return { content: [{ type: "text", text: "bumped" }] };
        });
      },
    };
    const sse = new SseSessions({
      keepAliveMs: 60_000,
      maxRequestBytes: 1 << 20,
      maxSessions: 5,
      idleMs: 60_000,
      connect: (transport, toolsets) => createMcpServer(deps, toolsets).connect(transport),
    });
    const res = await sse.open("/messages", [counting]);
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    const sessionId = (await reader.read()).value!.match(/sessionId=(\S+)/)![1];
    const auth = authInfoOf(defaultCaller(config));
    const send = (body: BodyInit) =>
      sse.post(
        new Request("http://x/messages", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body,
        }),
        sessionId,
        auth,
      );
    await send(JSON.stringify(initializeRequest(1, "2024-11-05")));
    await send(JSON.stringify(INITIALIZED));
    // The body of the call is still arriving when the server starts shutting down.
    const call = JSON.stringify({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "bump" },
    });
    const body = new TransformStream<Uint8Array, Uint8Array>();
    const writer = body.writable.getWriter();
    const encoder = new TextEncoder();
    const answer = send(body.readable);
    await writer.write(encoder.encode(call.slice(0, 10)));
    await sse.closeAll();
    await writer.write(encoder.encode(call.slice(10)));
    await writer.close();
    const res2 = await answer;
    await res2.body?.cancel();
    assert.equal(res2.status, 503, "refused, so the client knows to send it again");
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(ran, 0, "the call was not carried out after its session closed");
    await reader.cancel();
  });
});
