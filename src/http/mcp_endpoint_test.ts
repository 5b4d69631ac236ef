import assert from "node:assert/strict";
import { needsOf, needsOfHeaders } from "./mcp_endpoint.ts";

Deno.test("needsOf() names the tools a body calls, a listing, and prompts or resources", () => {
  const call = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "get_state" } };
  assert.deepEqual(needsOf(call), { tools: ["get_state"], listTools: false, others: false });
  assert.deepEqual(needsOf([call, { jsonrpc: "2.0", id: 2, method: "tools/list" }]), {
    tools: ["get_state"],
    listTools: true,
    others: false,
  });
  assert.deepEqual(needsOf({ jsonrpc: "2.0", id: 3, method: "resources/read" }), {
    tools: [],
    listTools: false,
    others: true,
  });
  for (const method of ["initialize", "server/discover", "notifications/initialized"]) {
    assert.deepEqual(needsOf({ jsonrpc: "2.0", method }), {
      tools: [],
      listTools: false,
      others: false,
    }, method);
  }
  // A body the factory cannot see gets everything.
  assert.equal(needsOf(undefined).all, true);
});

Deno.test("needsOfHeaders() reads a 2026 request's Mcp-Method and Mcp-Name", () => {
  const call = new Headers({ "mcp-method": "tools/call", "mcp-name": "list_projects" });
  assert.deepEqual(needsOfHeaders(call), {
    tools: ["list_projects"],
    listTools: false,
    others: false,
  });
  const list = new Headers({ "mcp-method": "tools/list" });
  assert.deepEqual(needsOfHeaders(list), { tools: [], listTools: true, others: false });
  const read = new Headers({ "mcp-method": "resources/read", "mcp-name": "ui://x" });
  assert.deepEqual(needsOfHeaders(read), { tools: [], listTools: false, others: true });
});
