import assert from "node:assert/strict";
import { z } from "zod";
import { flagArg, wholeNumberArg } from "./args.ts";
import { quickParseOf } from "../mcp/dispatch.ts";
import { McpServer } from "../mcp/sdk.ts";
import { DEFAULT_THINKING_LIMITS } from "./settings.ts";
import { registerThinkingTools } from "./tools.ts";
import { loadConfig } from "../config.ts";
import { defaultCaller } from "../mcp/caller.ts";
import { createMcpApp } from "../mcp/server.ts";
import { thinkingToolset } from "./toolset.ts";
import { withKv } from "../../tests/support/kv.ts";
import { assertQuickParseAgrees, registeredTools } from "../../tests/support/quick_parse.ts";

Deno.test("wholeNumberArg() takes numbers and decimal digits, and nothing else as a number", () => {
  const arg = wholeNumberArg(1, 100, "n");
  for (const [value, expected] of [[4, 4], ["4", 4], [" 42 ", 42], ["007", 7], [100, 100]]) {
    assert.equal(arg.parse(value), expected, JSON.stringify(value));
  }
  for (const value of [true, false, [4], "0x4", "4e0", "", " ", "4.0", 4.5, "-4", 0, 101, null]) {
    const result = arg.safeParse(value);
    assert.equal(result.success, false, `${JSON.stringify(value)} is refused`);
    assert.match(result.error!.issues[0].message, /whole number from 1 to 100/);
  }
  assert.match(arg.safeParse(undefined).error!.issues[0].message, /got undefined/);
});

Deno.test("flagArg() takes booleans and the strings true/false, nothing else", () => {
  const arg = flagArg("f");
  for (
    const [value, expected] of [[true, true], [false, false], ["TRUE", true], [" false ", false]]
  ) {
    assert.equal(arg.parse(value), expected, JSON.stringify(value));
  }
  for (const value of [1, 0, "yes", "", [true], null]) {
    assert.equal(arg.safeParse(value).success, false, `${JSON.stringify(value)} is refused`);
  }
});

Deno.test("the thinking arguments are listed as one type each, with their descriptions", () => {
  const schema = z.object({
    n: wholeNumberArg(1, 9, "A number"),
    f: flagArg("A flag").optional(),
  });
  assert.deepEqual(z.toJSONSchema(schema, { target: "draft-7", io: "input" }), {
    $schema: "http://json-schema.org/draft-07/schema#",
    type: "object",
    properties: {
      n: { type: "integer", minimum: 1, maximum: 9, description: "A number" },
      f: { type: "boolean", description: "A flag" },
    },
    required: ["n"],
  });
});

Deno.test("the quick parse of sequentialthinking arguments agrees with their schema", () =>
  withKv((kv) => {
    const server = new McpServer({ name: "t", version: "1" });
    registerThinkingTools(server, { kv, limits: DEFAULT_THINKING_LIMITS });
    const max = DEFAULT_THINKING_LIMITS.numberMax;
    assertQuickParseAgrees(registeredTools(server).sequentialthinking, {
      plain: { thought: "t", nextThoughtNeeded: true, thoughtNumber: 1, totalThoughts: 3 },
      values: [
        "",
        "a thought",
        "x".repeat(64),
        "x".repeat(65),
        "é".repeat(64),
        true,
        false,
        "true",
        0,
        1,
        7,
        1.5,
        -1,
        max,
        max + 1,
        "4",
        null,
        [],
        {},
      ],
      extraNames: ["unknown", "__proto__", "constructor"],
      rounds: 20_000,
      maxChanges: 4,
      seed: 7,
      minTaken: 1000,
    });
    return Promise.resolve();
  }));

Deno.test("every server built for a connection keeps the quick parse of sequentialthinking", async () => {
  await withKv((kv) => {
    const config = loadConfig(new Map());
    const toolsets = [thinkingToolset.load(new Map())];
    const app = createMcpApp({ kv, config, caller: defaultCaller(config) }, toolsets);
    for (const server of [app.server(), app.server(), app.server(undefined, { stateless: true })]) {
      const tools = registeredTools(server);
      assert.ok(quickParseOf(tools.sequentialthinking), "the quick parse applies");
    }
    return Promise.resolve();
  });
});
