import { loadConfig } from "./src/config.ts";
import { loadToolsets } from "./src/toolsets.ts";
import { recordToolsets } from "./src/mcp/registry.ts";
import { defaultCaller } from "./src/mcp/caller.ts";
import { McpServer } from "./src/mcp/sdk.ts";
const env = new Map([["KV_PATH", ":memory:"], ["TOOLSETS", "focus"]]);
const config = loadConfig(env);
const kv = await Deno.openKv(":memory:");
const toolsets = loadToolsets(env);
const rec = recordToolsets(toolsets, { kv, config, caller: defaultCaller(config) });
let cfg: any, h: any;
rec.tools.get("list_projects")!.apply({
  registerTool: (_n: string, c: unknown, hh: unknown) => {
    cfg = c;
    h = hh;
  },
} as never);
const ctx = { mcpReq: {}, http: undefined };
const t0 = performance.now();
for (let i = 0; i < 500; i++) await h({}, ctx);
console.log("handler", ((performance.now() - t0) / 500).toFixed(3));
const r = await h({}, ctx);
const t1 = performance.now();
for (let i = 0; i < 500; i++) cfg.outputSchema["~standard"].validate(r.structuredContent);
console.log("validate out", ((performance.now() - t1) / 500).toFixed(3));
const t2 = performance.now();
for (let i = 0; i < 500; i++) cfg.inputSchema["~standard"].validate({});
console.log("validate in", ((performance.now() - t2) / 500).toFixed(3));
const t3 = performance.now();
for (let i = 0; i < 500; i++) {
  const s = new McpServer({ name: "x", version: "1" });
  rec.tools.get("list_projects")!.apply(s);
}
console.log("new+register", ((performance.now() - t3) / 500).toFixed(3));
console.log(JSON.stringify(r).length);
kv.close();
import { createMcpHandler } from "./src/mcp/sdk.ts";
import { CACHE_HINTS, createMcpApp } from "./src/mcp/server.ts";
const kv2 = await Deno.openKv(":memory:");
const deps = { kv: kv2, config, caller: defaultCaller(config) };
const rec2 = recordToolsets(toolsets, deps);
const app = createMcpApp(deps, toolsets);
const caps = {
  tools: { listChanged: false },
  completions: {},
  prompts: { listChanged: false },
  resources: { listChanged: false },
  logging: {},
};
const mk = (opts: Record<string, unknown>) =>
  createMcpHandler(() => {
    const s = new McpServer({ name: "x", version: "1" }, opts);
    rec2.tools.get("list_projects")!.apply(s);
    return s;
  });
const meta = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "m", version: "1" },
};
function req() {
  const body = {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "list_projects", arguments: {}, _meta: meta },
  };
  return new Request("http://127.0.0.1/mcp", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": "list_projects",
    },
    body: JSON.stringify(body),
  });
}
import { z } from "zod";
const floor = createMcpHandler(() => {
  const s = new McpServer({ name: "x", version: "1" });
  s.registerTool(
    "list_projects",
    { inputSchema: z.object({}) },
    () => ({ content: [{ type: "text", text: "ok" }] }),
  );
  return s;
});
const variants: Record<string, ReturnType<typeof mk>> = {
  floor,
  bare: mk({}),
  caps: mk({ capabilities: caps }),
  hints: mk({ cacheHints: CACHE_HINTS }),
  instr: mk({ instructions: "x".repeat(2000) }),
  app: createMcpHandler(() =>
    app.requestServer(toolsets, { tools: ["list_projects"], listTools: false, others: false })
  ),
};
const totals: Record<string, number> = {};
for (let i = 0; i < 1500; i++) {
  for (const [k, h] of Object.entries(variants)) {
    const t = performance.now();
    await (await h.fetch(req())).text();
    if (i >= 150) totals[k] = (totals[k] ?? 0) + performance.now() - t;
  }
}
for (const [k, v] of Object.entries(totals)) console.log(k, (v / 1350).toFixed(3));
console.log(await (await variants.bare.fetch(req())).text());
