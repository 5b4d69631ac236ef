/**
 * The tool definitions a client sends its model on every turn stay lean (issue 24): on average at
 * most 550 bytes per tool in the shape Claude Code 2.1.197 sends (`{name: "mcp__handoff__…",
 * description, input_schema}`, compact JSON), and the instructions at most 800 bytes. The bench
 * (`deno task bench definitions`) measures the same through the real CLI and the stub model; this
 * test keeps a change from growing them unnoticed, without starting a CLI.
 */

import assert from "node:assert/strict";
import { connect, startServer } from "./support/harness.ts";

const BYTES_PER_TOOL_MAX = 550;
const INSTRUCTIONS_BYTES_MAX = 800;
const utf8 = (text: string) => new TextEncoder().encode(text).length;

Deno.test("tool definitions average at most 550 bytes as Claude Code sends them; instructions at most 800", async () => {
  const server = await startServer();
  try {
    const client = await connect(server, "http");
    const { tools } = await client.listTools();
    const instructions = client.getInstructions() ?? "";
    await client.close();
    const sizes = tools.map((t) => ({
      name: t.name,
      bytes: utf8(JSON.stringify({
        name: `mcp__handoff__${t.name}`,
        description: t.description,
        input_schema: t.inputSchema,
      })),
    }));
    const average = sizes.reduce((a, s) => a + s.bytes, 0) / sizes.length;
    const largest = [...sizes].sort((a, b) => b.bytes - a.bytes).slice(0, 5)
      .map((s) => `${s.name} ${s.bytes}`).join(", ");
    assert.ok(
      average <= BYTES_PER_TOOL_MAX,
      `${
        Math.round(average)
      } bytes per tool on average (at most ${BYTES_PER_TOOL_MAX}); largest: ${largest}`,
    );
    assert.ok(
      utf8(instructions) <= INSTRUCTIONS_BYTES_MAX,
      `instructions are ${utf8(instructions)} bytes (at most ${INSTRUCTIONS_BYTES_MAX})`,
    );
  } finally {
    await server.close();
  }
});
