import assert from "node:assert/strict";
import { loadToolsets, parseToolsetNames, TOOLSET_NAMES } from "./toolsets.ts";

Deno.test("loadToolsets() serves every toolset by default, in registration order", () => {
  assert.deepEqual(loadToolsets(new Map()).map((t) => t.name), [...TOOLSET_NAMES]);
  const some = loadToolsets(new Map([["TOOLSETS", "thinking, focus"]]));
  assert.deepEqual(some.map((t) => t.name), ["focus", "thinking"]);
});

Deno.test("parseToolsetNames() names the setting and the allowed toolsets", () => {
  assert.throws(
    () => loadToolsets(new Map([["TOOLSETS", "focus,nope"]])),
    /TOOLSETS has unknown toolset "nope": allowed are focus, handoff, thinking/,
  );
  assert.throws(() => parseToolsetNames("x", "The query"), /The query has unknown toolset "x"/);
});
