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

Deno.test("secretMatches() accepts only the exact token", () => {
  assert.equal(secretMatches("secret-token", "secret-token"), true);
  assert.equal(secretMatches("secret-tokeN", "secret-token"), false);
  assert.equal(secretMatches("secret", "secret-token"), false);
  assert.equal(secretMatches("", "secret-token"), false);
  assert.equal(secretMatches(null, "secret-token"), false);
});

Deno.test("SecretSet.match() names the first secret equal to the token, and nothing else", () => {
  const secrets = new SecretSet([["alpha-secret", "a"], ["beta-secret", "b"], [
    "alpha-secret",
    "c",
  ]]);
  assert.equal(secrets.match("alpha-secret"), "a");
  assert.equal(secrets.match("beta-secret"), "b");
  assert.equal(secrets.match("beta-secreT"), undefined);
  assert.equal(secrets.match("beta"), undefined);
  assert.equal(secrets.match("ünï-çødé"), undefined);
  assert.equal(secrets.match(""), undefined);
  assert.equal(secrets.match(null), undefined);
  assert.equal(new SecretSet([["ünï-çødé", 1]]).match("ünï-çødé"), 1);
});

Deno.test("a guess that repeats or extends the secret is refused: the lengths are compared too", () => {
  assert.equal(secretMatches("a", "aaaa"), false);
  assert.equal(secretMatches("ab", "abab"), false);
  assert.equal(secretMatches("abab", "ab"), false);
  assert.equal(secretMatches("secret-token-and-more", "secret-token"), false);
  assert.equal(new SecretSet([["aaaa", 1]]).match("a"), undefined);
  assert.equal(new SecretSet([["ab", 1]]).match("abab"), undefined);
});
