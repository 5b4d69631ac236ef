/**
 * The server's public face, pinned: `tools/list`, `prompts/list`, `resources/list`, the resource
 * templates and the instructions must stay byte-identical to `fixtures/listing.json` unless a
 * change means to alter them (then run with UPDATE_LISTING=1 and review the diff).
 */

import assert from "node:assert/strict";
import { connect, startServer } from "./support/harness.ts";

const FIXTURE = new URL("./fixtures/listing.json", import.meta.url);

Deno.test("tools, prompts, resources and instructions match the pinned listing", async () => {
  const server = await startServer();
  try {
    const client = await connect(server, "http");
    const listing = {
      instructions: client.getInstructions(),
      capabilities: client.getServerCapabilities(),
      tools: (await client.listTools()).tools,
      prompts: (await client.listPrompts()).prompts,
      resources: (await client.listResources()).resources,
      resourceTemplates: (await client.listResourceTemplates()).resourceTemplates,
    };
    await client.close();
    const actual = JSON.stringify(listing, null, 2) + "\n";
    if (Deno.env.get("UPDATE_LISTING") === "1") await Deno.writeTextFile(FIXTURE, actual);
    assert.equal(actual, await Deno.readTextFile(FIXTURE));
  } finally {
    await server.close();
  }
});
