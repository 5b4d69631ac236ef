import assert from "node:assert/strict";
import { isLoopback, rebindingGuard, rebindingRefusal } from "./auth.ts";

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

Deno.test("rebindingGuard() answers as rebindingRefusal() does, however often a host comes back", () => {
  const req = (headers: Record<string, string>) => new Request("http://127.0.0.1/", { headers });
  const allowedHosts = ["my.tunnel.dev"];
  const guard = rebindingGuard(allowedHosts);
  const requests: Record<string, string>[] = [
    { host: "127.0.0.1:8787" },
    { host: "127.0.0.1:8787" },
    { host: "127.0.0.1:8787", origin: "http://evil.example.com" },
    { host: "127.0.0.1:8787", origin: "not a url" },
    { host: "127.0.0.1:8787", origin: "http://localhost:3000" },
    { host: "evil.example.com" },
    { host: "evil.example.com" },
    { host: "my.tunnel.dev" },
    { host: "my.tunnel.dev", origin: "http://127.0.0.1.evil.com" },
    {},
  ];
  for (let round = 0; round < 2; round++) {
    for (const headers of requests) {
      assert.equal(guard(req(headers)), rebindingRefusal(req(headers), allowedHosts));
    }
  }
  assert.match(guard(req({ host: "127.0.0.1", origin: "http://evil.example.com" }))!, /Origin/);
  for (let i = 0; i < 200; i++) {
    assert.equal(guard(req({ host: `127.0.0.${i % 250}:1` })), undefined);
  }
});
