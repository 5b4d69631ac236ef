import assert from "node:assert/strict";
import { bearerToken, isLoopback, rebindingRefusal, SecretSet, tokenMatches } from "./auth.ts";

Deno.test("tokenMatches() accepts only the exact token", () => {
  assert.equal(tokenMatches("secret-token", "secret-token"), true);
  assert.equal(tokenMatches("secret-tokeN", "secret-token"), false);
  assert.equal(tokenMatches("secret", "secret-token"), false);
  assert.equal(tokenMatches("", "secret-token"), false);
  assert.equal(tokenMatches(null, "secret-token"), false);
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

Deno.test("bearerToken() reads only a Bearer authorization header", () => {
  const req = (value?: string) =>
    new Request("http://x/", { headers: value ? { authorization: value } : {} });
  assert.equal(bearerToken(req("Bearer abc")), "abc");
  assert.equal(bearerToken(req("bearer abc")), "abc");
  assert.equal(bearerToken(req("Basic abc")), null);
  assert.equal(bearerToken(req()), null);
});

Deno.test("rebindingRefusal() refuses foreign Host and Origin on loopback, allows local ones", () => {
  const req = (headers: Record<string, string>) => new Request("http://127.0.0.1/", { headers });
  assert.equal(rebindingRefusal(req({ host: "127.0.0.1:8787" }), []), undefined);
  assert.equal(
    rebindingRefusal(req({ host: "localhost:8787", origin: "http://localhost:3000" }), []),
    undefined,
  );
  assert.equal(rebindingRefusal(req({ host: "[::1]:8787" }), []), undefined);
  assert.match(rebindingRefusal(req({ host: "evil.example.com" }), [])!, /Host "evil.example.com"/);
  assert.match(
    rebindingRefusal(req({ host: "127.0.0.1:8787", origin: "http://evil.example.com" }), [])!,
    /Origin/,
  );
  assert.equal(rebindingRefusal(req({ host: "my.tunnel.dev" }), ["my.tunnel.dev"]), undefined);
  assert.equal(isLoopback("0.0.0.0"), false);
  for (const name of ["127.0.0.1.evil.com", "127.attacker.example", "localhost.evil.com"]) {
    assert.equal(isLoopback(name), false, name);
    assert.match(rebindingRefusal(req({ host: name }), [])!, /not allowed/, name);
    assert.match(
      rebindingRefusal(req({ host: "127.0.0.1", origin: `http://${name}` }), [])!,
      /not allowed/,
      name,
    );
  }
  assert.equal(isLoopback("127.0.0.2"), true);
  assert.equal(isLoopback("LOCALHOST"), true);
});
