/** Toolset selection: TOOLSETS on the server, `?toolsets=` per client, over each transport. */

import assert from "node:assert/strict";
import { connect, connectStdio, startServer, tempKvPath } from "./support/harness.ts";
import {
  Client,
  SSEClientTransport,
  StreamableHTTPClientTransport,
} from "../src/client/sdk_client.ts";

const FOCUS = [
  "add_task",
  "complete_task",
  "get_state",
  "list_projects",
  "set_focus",
  "set_north_star",
];
const THINKING = ["delete_thought_sequence", "get_thought_history", "sequentialthinking"];

async function toolNames(client: InstanceType<typeof Client>): Promise<string[]> {
  return (await client.listTools()).tools.map((t) => t.name).sort();
}

Deno.test("by default every toolset is served, and the instructions cover each", async () => {
  const server = await startServer();
  try {
    const client = await connect(server, "http");
    const names = await toolNames(client);
    for (const name of [...FOCUS, ...THINKING, "handoff_save", "handoff_load"]) {
      assert.ok(names.includes(name), name);
    }
    const instructions = client.getInstructions() ?? "";
    assert.match(instructions, /get_state/);
    assert.match(instructions, /handoff_/);
    assert.match(instructions, /sequentialthinking/);
    await client.close();
  } finally {
    await server.close();
  }
});

Deno.test("?toolsets= gives one client a subset over Streamable HTTP and SSE", async () => {
  const server = await startServer();
  try {
    for (const kind of ["mcp", "sse"]) {
      const url = new URL(`${server.origin}/${server.token}/${kind}?toolsets=focus,thinking`);
      const client = new Client({ name: "subset", version: "1" });
      await client.connect(
        kind === "mcp" ? new StreamableHTTPClientTransport(url) : new SSEClientTransport(url),
      );
      assert.deepEqual(await toolNames(client), [...FOCUS, ...THINKING].sort(), kind);
      assert.doesNotMatch(client.getInstructions() ?? "", /handoff_save/);
      await client.close();
    }
  } finally {
    await server.close();
  }
});

Deno.test("TOOLSETS limits the server, over HTTP and stdio, and a client cannot widen it", async () => {
  const server = await startServer({ env: { TOOLSETS: "focus" } });
  const kvFile = await tempKvPath();
  try {
    const client = await connect(server, "http");
    assert.deepEqual(await toolNames(client), FOCUS);
    await client.close();
    const wider = await fetch(`${server.origin}/${server.token}/mcp?toolsets=focus,handoff`, {
      method: "POST",
    });
    assert.equal(wider.status, 400);
    assert.match(
      await wider.text(),
      /Toolset handoff is not enabled on this server; enabled: focus/,
    );

    const stdio = await connectStdio(kvFile.path, { TOOLSETS: "thinking" });
    assert.deepEqual(await toolNames(stdio), THINKING);
    await stdio.close();
  } finally {
    await server.close();
    await kvFile.cleanup();
  }
});
