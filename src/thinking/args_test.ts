import assert from "node:assert/strict";
import { z } from "zod";
import { flagArg, wholeNumberArg } from "./args.ts";

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
