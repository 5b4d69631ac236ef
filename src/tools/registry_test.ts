import assert from "node:assert/strict";
import { z } from "zod";
import { recordToolsets } from "./registry.ts";
import { textResult } from "./results.ts";
import { READ_ONLY } from "./annotations.ts";

/** One read-only tool answering `size` characters, under a budget of 1,000 tokens. */
function bigTool(size: number) {
  const toolset = {
    name: "probe",
    register(server: Parameters<Parameters<typeof recordToolsets>[0][0]["register"]>[0]) {
      server.registerTool("big", {
        inputSchema: { a: z.string().optional() },
        annotations: READ_ONLY,
      }, () => textResult("x".repeat(size)));
    },
  };
  const config = { resultMaxTokens: 1_000, resultMaxChars: 100_000 };
  return recordToolsets([toolset], { config }).tools.get("big")!.handler;
}

Deno.test("a tool's result is held to the budget less the room the ignored-arguments line needs", async () => {
  // 3,400 ASCII characters are 850 estimated tokens: within 1,000, but not within the 800 a
  // result keeps free of the line that names ignored arguments.
  await assert.rejects(async () => await bigTool(3_400)({}, {}), /RESULT_TOO_LARGE/);
  const fits = await bigTool(3_000)({}, {}) as { content: { text: string }[] };
  assert.equal(fits.content[0].text.length, 3_000);
});

Deno.test("a result the ignored-arguments line takes over the budget is refused, not sent", async () => {
  const handler = bigTool(3_000);
  const named = await handler({ b: 1 }, {}) as { content: { text: string }[] };
  assert.match(named.content[0].text, /Ignored argument "b"/);
  // A name of 1,200 characters makes the line alone 300 tokens: 750 + 300 > 1,000.
  await assert.rejects(
    async () => await handler({ ["y".repeat(1_200)]: 1 }, {}),
    /RESULT_TOO_LARGE/,
  );
});
