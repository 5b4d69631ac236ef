import assert from "node:assert/strict";
import { loadConfig } from "../config.ts";
import { createMcpServer, type Toolset } from "../mcp/server.ts";
import { withKv } from "../../tests/support/kv.ts";
import { SseSessions } from "./sse.ts";
import { authInfoOf } from "./identity.ts";
import { defaultCaller } from "../mcp/caller.ts";

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
    await post({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2024-11-05",
        capabilities: {},
        clientInfo: { name: "t", version: "1" },
      },
    });
    await post({ jsonrpc: "2.0", method: "notifications/initialized" });
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
    assert.equal(sse.size, 0, "then the idle session was closed");
  });
});
