import assert from "node:assert/strict";
import {
  estimateJsonTokens,
  estimateTokens,
  resultMaxCharsVar,
  resultMaxTokensVar,
} from "./budget.ts";

Deno.test("estimateTokens() counts Latin by bytes and CJK by character", () => {
  assert.equal(estimateTokens("abcd".repeat(10)), 10);
  assert.equal(estimateTokens("東京で明日の会議"), 8);
  assert.equal(estimateTokens("🙂"), 1);
  assert.equal(estimateTokens("éé"), 1);
  assert.equal(estimateJsonTokens({ a: "b" }), 3);
});

Deno.test("resultMaxTokensVar() reads RESULT_MAX_TOKENS with its bounds", () => {
  assert.equal(resultMaxTokensVar(new Map()), 20_000);
  assert.equal(resultMaxTokensVar(new Map([["RESULT_MAX_TOKENS", "5000"]])), 5000);
  assert.throws(
    () => resultMaxTokensVar(new Map([["RESULT_MAX_TOKENS", "5"]])),
    /RESULT_MAX_TOKENS/,
  );
});

Deno.test("resultMaxCharsVar() reads RESULT_MAX_CHARS with its bounds", () => {
  assert.equal(resultMaxCharsVar(new Map()), 40_000);
  assert.equal(resultMaxCharsVar(new Map([["RESULT_MAX_CHARS", "100000"]])), 100_000);
  assert.throws(() => resultMaxCharsVar(new Map([["RESULT_MAX_CHARS", "50"]])), /RESULT_MAX_CHARS/);
});
