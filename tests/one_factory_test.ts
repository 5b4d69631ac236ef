/**
 * One server factory (issue 25): every `McpServer` of the server is made by `buildServer` in
 * `src/mcp/server.ts`, so `new McpServer(` is written in exactly one place outside tests.
 */

import assert from "node:assert/strict";
import { join, relative } from "node:path";

const SRC = new URL("../src/", import.meta.url).pathname;

Deno.test("new McpServer( is written in one place in src/, the factory", async () => {
  const places: string[] = [];
  const walk = async (dir: string) => {
    for await (const entry of Deno.readDir(dir)) {
      const path = join(dir, entry.name);
      if (entry.isDirectory) await walk(path);
      else if (path.endsWith(".ts") && !path.endsWith("_test.ts")) {
        const count = (await Deno.readTextFile(path)).split("new McpServer(").length - 1;
        for (let i = 0; i < count; i++) places.push(relative(SRC, path));
      }
    }
  };
  await walk(SRC);
  assert.deepEqual(places, ["mcp/server.ts"]);
});
