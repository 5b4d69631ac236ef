import assert from "node:assert/strict";
import { bearerToken, isLoopback, rebindingRefusal } from "./auth.ts";

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
