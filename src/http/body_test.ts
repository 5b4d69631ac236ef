import assert from "node:assert/strict";
import { isJson } from "./body.ts";

Deno.test("isJson() takes application/json with or without parameters, and nothing like it", () => {
  assert.equal(isJson("application/json"), true);
  assert.equal(isJson("Application/JSON; charset=utf-8"), true);
  assert.equal(isJson("application/jsonx"), false);
  assert.equal(isJson("text/plain"), false);
  assert.equal(isJson(null), false);
});
