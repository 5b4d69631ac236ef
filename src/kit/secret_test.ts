import assert from "node:assert/strict";
import { secretMatches, SecretSet } from "./secret.ts";

Deno.test("secretMatches() accepts only the exact secret, whatever its length or script", () => {
  assert.equal(secretMatches("approval-code", "approval-code"), true);
  assert.equal(secretMatches("approval-codE", "approval-code"), false);
  assert.equal(secretMatches("approval", "approval-code"), false);
  assert.equal(secretMatches("", "approval-code"), false);
  assert.equal(secretMatches(null, "approval-code"), false);
  assert.equal(secretMatches("ünï-çødé", "ünï-çødé"), true);
});

Deno.test("SecretSet.match() tells which secret matched, and nothing for a near miss", () => {
  const set = new SecretSet([["alpha-secret", "a"], ["beta-secret", "b"]]);
  assert.equal(set.match("beta-secret"), "b");
  assert.equal(set.match("beta-secreT"), undefined);
});
