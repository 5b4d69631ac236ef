import assert from "node:assert/strict";
import { needsOf, routeOf } from "./mcp_route.ts";

const post = (headers: Record<string, string> = {}) =>
  new Request("http://localhost/mcp", { method: "POST", headers });
const MODERN = { "io.modelcontextprotocol/protocolVersion": "2026-07-28" };
const call = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "get_state" } };

Deno.test("needsOf() names the tools messages call, a listing, and prompts or resources", () => {
  assert.deepEqual(needsOf([call]), { tools: ["get_state"], listTools: false, others: false });
  assert.deepEqual(needsOf([call, call, { jsonrpc: "2.0", id: 2, method: "tools/list" }]), {
    tools: ["get_state"],
    listTools: true,
    others: false,
  });
  assert.deepEqual(needsOf([{ jsonrpc: "2.0", id: 3, method: "resources/read" }]), {
    tools: [],
    listTools: false,
    others: true,
  });
  for (const method of ["initialize", "server/discover", "notifications/initialized"]) {
    assert.deepEqual(needsOf([{ jsonrpc: "2.0", method }]), {
      tools: [],
      listTools: false,
      others: false,
    }, method);
  }
});

Deno.test("routeOf() splits the eras as the SDK does, and hands each route its needs", () => {
  const legacy = routeOf(post(), call);
  assert.deepEqual(legacy, {
    kind: "legacy",
    needs: { tools: ["get_state"], listTools: false, others: false },
    stream: false,
    cancels: false,
  });
  const progress = { ...call, params: { name: "get_state", _meta: { progressToken: 1 } } };
  assert.equal((routeOf(post(), progress) as { stream: boolean }).stream, true);
  const modern = { ...call, params: { name: "get_state", _meta: MODERN } };
  const headers = {
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": "tools/call",
    "mcp-name": "get_state",
  };
  assert.deepEqual(routeOf(post(headers), modern), {
    kind: "modern",
    needs: { tools: ["get_state"], listTools: false, others: false, modern: true },
    cancels: false,
  });
  const listen = {
    jsonrpc: "2.0",
    id: 4,
    method: "subscriptions/listen",
    params: { _meta: MODERN },
  };
  assert.equal(routeOf(post(), listen).kind, "listen");
  const cancel = { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 4 } };
  assert.equal(routeOf(post(), cancel).cancels, true);
  assert.equal(routeOf(post(), call).cancels, false);
});

Deno.test("routeOf() keeps the batch rules and refuses a 2025 subscribe, naming what works", async () => {
  const refusal = async (req: Request, body: unknown) => {
    const route = routeOf(req, body);
    assert.equal(route.kind, "refused");
    const response = (route as { response: Response }).response;
    return { status: response.status, message: (await response.json()).error.message as string };
  };
  const modernBatch = [{ ...call, params: { name: "x", _meta: MODERN } }];
  assert.match((await refusal(post(), modernBatch)).message, /2026-07-28 has no batches/);
  const newer = post({ "mcp-protocol-version": "2025-06-18" });
  assert.match((await refusal(newer, [call])).message, /2025-06-18 has no JSON-RPC batches/);
  const many = Array.from({ length: 101 }, (_, i) => ({ ...call, id: i }));
  assert.match((await refusal(post(), many)).message, /must not exceed 100 messages/);
  const subscribe = { jsonrpc: "2.0", id: 9, method: "resources/subscribe", params: { uri: "x" } };
  assert.match((await refusal(post(), subscribe)).message, /subscriptions\/listen/);
  const repeated = routeOf(post(), [call, { ...call, params: { name: "list_projects" } }]);
  assert.equal(repeated.kind, "each");
  assert.deepEqual(
    (repeated as { parts: { needs: { tools: string[] } }[] }).parts.map((p) => p.needs.tools),
    [["get_state"], ["list_projects"]],
  );
  assert.equal(routeOf(post(), [call, { ...call, id: 2 }]).kind, "legacy");
});
