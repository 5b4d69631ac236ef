import assert from "node:assert/strict";
import { z } from "zod";
import { loadConfig } from "../config.ts";
import { withKv } from "../../tests/support/kv.ts";
import { Client, InMemoryTransport } from "../client/sdk_client.ts";
import { createMcpApp, createMcpServer, type Toolset } from "./server.ts";
import { defaultCaller } from "../tools/caller.ts";

const toolOnly: Toolset = {
  name: "probe",
  instructions: "A toolset with one tool and nothing else.",
  register(server) {
    server.registerTool("probe", { inputSchema: { x: z.string() } }, () => ({ content: [] }));
  },
};

Deno.test("createMcpServer() advertises no list_changed and only the kinds a toolset registers", async () => {
  await withKv(async (kv) => {
    const config = loadConfig(new Map());
    const server = createMcpServer({ kv, config, caller: defaultCaller(config) }, [toolOnly]);
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: "test", version: "1.0.0" });
    await Promise.all([server.connect(a), client.connect(b)]);
    const caps = client.getServerCapabilities()!;
    assert.deepEqual(caps.tools, { listChanged: false });
    assert.equal(caps.prompts, undefined);
    assert.equal(caps.resources, undefined);
    await client.close();
    await server.close();
  });
});

const twoTools: Toolset = {
  name: "pair",
  instructions: "Two tools.",
  register(server) {
    for (const name of ["first", "second"]) {
      server.registerTool(name, { inputSchema: { x: z.string() } }, ({ x }) => ({
        content: [{ type: "text", text: `${name} ${x}` }],
      }));
    }
  },
};

Deno.test("a request server registers only the tool it calls, and lists every tool", async () => {
  await withKv(async (kv) => {
    const config = loadConfig(new Map());
    const app = createMcpApp({ kv, config, caller: defaultCaller(config) }, [twoTools]);
    const server = app.buildServer([twoTools], {
      tools: ["first"],
      listTools: true,
      others: false,
    });
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: "test", version: "1.0.0" });
    await Promise.all([server.connect(a), client.connect(b)]);
    const listed = await client.listTools();
    assert.deepEqual(listed.tools.map((t) => t.name), ["first", "second"]);
    assert.deepEqual(listed.tools[1].inputSchema.properties, { x: { type: "string" } });
    const first = await client.callTool({ name: "first", arguments: { x: "a" } });
    assert.deepEqual(first.content, [{ type: "text", text: "first a" }]);
    // Not registered on this server: the SDK answers as for an unknown tool.
    const second = await client.callTool({ name: "second", arguments: { x: "a" } }).then(
      (r) => JSON.stringify(r),
      (e: Error) => e.message,
    );
    assert.match(second, /second not found/);
    await client.close();
    await server.close();
  });
});
