import assert from "node:assert/strict";
import { z } from "zod";
import { loadConfig } from "../config.ts";
import { withKv } from "../../tests/support/kv.ts";
import { Client, InMemoryTransport } from "./sdk_client.ts";
import { createMcpServer, type Toolset } from "./server.ts";
import { defaultCaller } from "./caller.ts";

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
