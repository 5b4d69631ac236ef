import assert from "node:assert/strict";
import { z } from "zod";
import { loadConfig } from "../config.ts";
import { withKv } from "../../tests/support/kv.ts";
import { defaultCaller } from "./caller.ts";
import { isPlainToolCall, isRequestEnvelope } from "./dispatch.ts";
import { CallToolRequestSchema, isJSONRPCRequest, type JSONRPCMessage, McpServer } from "./sdk.ts";
import { InMemoryTransport } from "./sdk_client.ts";
import { createMcpServer, type Toolset } from "./server.ts";
import { INITIALIZED, initializeRequest } from "../../tests/support/rpc.ts";

const RELATED = "io.modelcontextprotocol/related-task";

const REQUESTS: unknown[] = [
  { jsonrpc: "2.0", id: 1, method: "ping" },
  { jsonrpc: "2.0", id: "a", method: "tools/call", params: { name: "x", arguments: {} } },
  { jsonrpc: "2.0", id: 0, method: "tools/list", params: {} },
  { jsonrpc: "2.0", id: 2, method: "tools/call", params: { _meta: { progressToken: "t" } } },
  { jsonrpc: "2.0", id: 3, method: "tools/call", params: { _meta: { progressToken: 7, x: 1 } } },
];

const NOT_FOR_THE_SHORT_PATH: unknown[] = [
  null,
  [],
  "ping",
  { id: 1, method: "ping" },
  { jsonrpc: "1.0", id: 1, method: "ping" },
  { jsonrpc: "2.0", method: "notifications/initialized" },
  { jsonrpc: "2.0", id: 1.5, method: "ping" },
  { jsonrpc: "2.0", id: null, method: "ping" },
  { jsonrpc: "2.0", id: 2 ** 53, method: "ping" },
  { jsonrpc: "2.0", id: 1, method: 5 },
  { jsonrpc: "2.0", id: 1, method: "ping", extra: true },
  { jsonrpc: "2.0", id: 1, method: "ping", params: [] },
  { jsonrpc: "2.0", id: 1, method: "ping", params: null },
  { jsonrpc: "2.0", id: 1, method: "ping", params: { _meta: [] } },
  { jsonrpc: "2.0", id: 1, method: "ping", params: { _meta: { progressToken: true } } },
  { jsonrpc: "2.0", id: 1, method: "ping", params: { _meta: { progressToken: 1.5 } } },
  { jsonrpc: "2.0", id: 1, method: "ping", params: { _meta: { [RELATED]: { taskId: "t" } } } },
  { jsonrpc: "2.0", id: 1, result: {} },
  { jsonrpc: "2.0", id: 1, error: { code: 1, message: "no" } },
];

Deno.test("isRequestEnvelope() takes only what the SDK's request schema takes", () => {
  for (const message of REQUESTS) {
    assert.equal(isRequestEnvelope(message), true, JSON.stringify(message));
    assert.equal(isJSONRPCRequest(message), true, JSON.stringify(message));
  }
  for (const message of NOT_FOR_THE_SHORT_PATH) {
    assert.equal(isRequestEnvelope(message), false, JSON.stringify(message));
  }
});

Deno.test("isPlainToolCall() takes only calls the SDK's tools/call schema takes as they are", () => {
  const call = (params: unknown) => ({ jsonrpc: "2.0", id: 1, method: "tools/call", params });
  for (
    const params of [
      { name: "x" },
      { name: "x", arguments: {} },
      { name: "x", arguments: { a: [1], constructor: "y" }, _meta: { progressToken: 1 } },
      { name: "x", arguments: Object.create(null) },
    ]
  ) {
    assert.equal(isPlainToolCall(call(params)), true, JSON.stringify(params));
    assert.equal(CallToolRequestSchema.safeParse(call(params)).success, true);
  }
  for (
    const params of [
      undefined,
      [],
      {},
      { name: 5 },
      { name: "x", arguments: [] },
      { name: "x", arguments: null },
      { name: "x", arguments: new Map() },
      { name: "x", task: {} },
      { name: "x", task: null },
      { name: "x", _meta: [] },
    ]
  ) {
    assert.equal(isPlainToolCall(call(params)), false, JSON.stringify(params));
  }
});

const probe: Toolset = {
  name: "probe",
  instructions: "One tool.",
  register(server) {
    server.registerTool("echo", { inputSchema: { x: z.string() } }, ({ x }) => ({
      content: [{ type: "text", text: x }],
    }));
  },
};

/** Internals of the SDK's `Protocol` that the short path depends on. */
interface Internals {
  _onrequest: (...args: unknown[]) => void;
}

Deno.test("fastRequests() answers requests by the short path and leaves the rest to the SDK", async () => {
  await withKv(async (kv) => {
    const config = loadConfig(new Map());
    const server = createMcpServer({ kv, config, caller: defaultCaller(config) }, [probe]);
    const protocol = server.server as unknown as Internals;
    // If the SDK renames this, the short path silently turns itself off: fail here instead.
    assert.equal(typeof protocol._onrequest, "function");
    const [serverEnd, clientEnd] = InMemoryTransport.createLinkedPair();
    const received: JSONRPCMessage[] = [];
    const waiters = new Map<unknown, (m: JSONRPCMessage) => void>();
    clientEnd.onmessage = (message) => {
      received.push(message);
      if ("id" in message) waiters.get(message.id)?.(message);
    };
    await server.connect(serverEnd);
    await clientEnd.start();
    const ask = (message: Record<string, unknown>) =>
      new Promise<JSONRPCMessage>((resolve) => {
        waiters.set(message.id, resolve);
        void clientEnd.send({ jsonrpc: "2.0", ...message } as JSONRPCMessage);
      });

    // From here the SDK's own path counts through `_onrequest`; the short path bound it earlier.
    let slow = 0;
    const onrequest = protocol._onrequest.bind(protocol);
    protocol._onrequest = (...args) => {
      slow++;
      onrequest(...args);
    };
    const init = await ask(initializeRequest(1));
    assert.ok("result" in init);
    await clientEnd.send(INITIALIZED);
    const echo = await ask({
      id: 2,
      method: "tools/call",
      params: { name: "echo", arguments: { x: "hi" } },
    });
    assert.deepEqual(echo, {
      jsonrpc: "2.0",
      id: 2,
      result: { content: [{ type: "text", text: "hi" }] },
    });
    const bad = await ask({ id: 3, method: "tools/call", params: { name: "echo", arguments: {} } });
    assert.match(JSON.stringify(bad), /Invalid arguments for tool echo/);
    const unknown = await ask({ id: 4, method: "nope" });
    assert.deepEqual(unknown, {
      jsonrpc: "2.0",
      id: 4,
      error: { code: -32601, message: "Method not found" },
    });
    assert.equal(slow, 0, "well-formed requests skip the SDK's sorting");

    // A request naming a related task goes the SDK's way.
    await ask({ id: 5, method: "ping", params: { _meta: { [RELATED]: { taskId: "t" } } } });
    assert.equal(slow, 1);

    // A response to the server's own request still reaches it (the SDK's path).
    clientEnd.onmessage = (message) => {
      if ("method" in message && message.method === "ping" && "id" in message) {
        void clientEnd.send({ jsonrpc: "2.0", id: message.id, result: {} });
      }
    };
    assert.deepEqual(await server.server.ping(), {});
    await server.close();
  });
});

/** A raw JSON-RPC peer of `server`: sends one message and resolves with the answer to its id. */
async function rawPeer(server: McpServer) {
  const [serverEnd, clientEnd] = InMemoryTransport.createLinkedPair();
  const waiters = new Map<unknown, (m: JSONRPCMessage) => void>();
  clientEnd.onmessage = (message) => {
    if ("id" in message) waiters.get(message.id)?.(message);
  };
  await server.connect(serverEnd);
  await clientEnd.start();
  return (message: Record<string, unknown>) =>
    new Promise<JSONRPCMessage>((resolve) => {
      waiters.set(message.id, resolve);
      void clientEnd.send({ jsonrpc: "2.0", ...message } as JSONRPCMessage);
    });
}

/** Tools whose failures and plain shapes the short path must answer as the SDK does. */
const edges: Toolset = {
  name: "edges",
  instructions: "Edge cases.",
  register(server) {
    server.registerTool("fails", { inputSchema: { n: z.number().int() } }, ({ n }) => {
      throw new Error(`failed with ${n}`);
    });
    server.registerTool("fails_async", { inputSchema: {} }, async () => {
      await Promise.resolve();
      throw "not an Error";
    });
    server.registerTool("no_input", {}, (extra) => ({
      content: [{ type: "text", text: `request ${extra.requestId}` }],
    }));
    server.registerTool("refuses", { inputSchema: { s: z.string().min(2) } }, ({ s }) => ({
      content: [{ type: "text", text: s }],
      isError: true,
    }));
  },
};

Deno.test("the short paths answer every tools/call exactly as the SDK's own server does", async () => {
  await withKv(async (kv) => {
    const config = loadConfig(new Map());
    const ours = createMcpServer({ kv, config, caller: defaultCaller(config) }, [probe, edges]);
    const plain = new McpServer({ name: "plain", version: "1" });
    probe.register(plain, { kv, config, caller: defaultCaller(config) });
    edges.register(plain, { kv, config, caller: defaultCaller(config) });
    const handlers = (ours.server as unknown as { _requestHandlers: Map<string, unknown> })
      ._requestHandlers;
    // If the SDK stops registering tools/call the way leanToolCalls() expects, fail here.
    assert.equal((handlers.get("tools/call") as { name: string }).name, "leanToolCall");
    const askOurs = await rawPeer(ours);
    const askPlain = await rawPeer(plain);
    // McpServer's own tools/call handler checks the arguments here; the short path does not.
    const internals = ours as unknown as { validateToolInput: (...a: unknown[]) => unknown };
    const validate = internals.validateToolInput.bind(ours);
    let slow = 0;
    internals.validateToolInput = (...a) => (slow++, validate(...a));
    await askOurs({
      id: "fast",
      method: "tools/call",
      params: { name: "echo", arguments: { x: "" } },
    });
    assert.equal(slow, 0, "a plain call runs its tool directly");
    await askOurs({ id: "slow", method: "tools/call", params: { name: "echo", arguments: {} } });
    assert.equal(slow, 1, "refused arguments are left to McpServer");
    const calls: Record<string, unknown>[] = [
      { method: "tools/call", params: { name: "echo", arguments: { x: "hi" } } },
      { method: "tools/call", params: { name: "echo", arguments: { x: 5 } } },
      { method: "tools/call", params: { name: "echo" } },
      { method: "tools/call", params: { name: "nope", arguments: {} } },
      { method: "tools/call", params: { arguments: { x: "hi" } } },
      { method: "tools/call", params: { name: 5 } },
      { method: "tools/call" },
      { method: "tools/call", params: { name: "echo", arguments: { x: "hi" }, _meta: { a: 1 } } },
      { method: "tools/call", params: { name: "echo", arguments: { x: "hi" }, other: [1] } },
      { method: "tools/call", params: { name: "echo", arguments: { x: "hi", constructor: 1 } } },
      { method: "tools/call", params: { name: "echo", arguments: ["hi"] } },
      { method: "tools/call", params: { name: "echo", arguments: null } },
      { method: "tools/call", params: { name: "echo", arguments: "hi" } },
      { method: "tools/call", params: { name: "echo", arguments: { x: "hi" }, task: null } },
      { method: "tools/call", params: { name: "echo", arguments: { x: "hi" }, task: {} } },
      { method: "tools/call", params: { name: "fails", arguments: { n: 3 } } },
      { method: "tools/call", params: { name: "fails", arguments: { n: 1.5 } } },
      { method: "tools/call", params: { name: "fails_async", arguments: { extra: 1 } } },
      { method: "tools/call", params: { name: "no_input" } },
      { method: "tools/call", params: { name: "no_input", arguments: { x: 1 } } },
      { method: "tools/call", params: { name: "refuses", arguments: { s: "ok" } } },
      { method: "tools/call", params: { name: "refuses", arguments: { s: "o" } } },
      { method: "ping" },
    ];
    let id = 0;
    for (const call of calls) {
      id++;
      assert.deepEqual(
        await askOurs({ id, ...call }),
        await askPlain({ id, ...call }),
        JSON.stringify(call),
      );
    }
    await ours.close();
    await plain.close();
  });
});
