import assert from "node:assert/strict";
import { isLoopback, rebindingGuard } from "./auth.ts";

const req = (headers: Record<string, string>) => new Request("http://127.0.0.1/", { headers });

/** The guard's refusal message, or `undefined` when it lets the request on. */
async function refusal(guard: (req: Request) => Response | undefined, h: Record<string, string>) {
  const refused = guard(req(h));
  if (refused === undefined) return undefined;
  assert.equal(refused.status, 403);
  return (await refused.json()).error.message as string;
}

Deno.test("rebindingGuard() refuses foreign Host and Origin on loopback, allows local ones", async () => {
  const guard = rebindingGuard([], "127.0.0.1");
  const local: Record<string, string>[] = [
    { host: "127.0.0.1:8787" },
    { host: "localhost:8787", origin: "http://localhost:3000" },
    { host: "LOCALHOST:8787" },
    { host: "[::1]:8787" },
    {}, // no Host: serve.ts answers 400 before the guard
  ];
  for (const h of local) assert.equal(await refusal(guard, h), undefined, JSON.stringify(h));
  assert.match((await refusal(guard, { host: "evil.example.com" }))!, /evil\.example\.com/);
  assert.match(
    (await refusal(guard, { host: "127.0.0.1:8787", origin: "http://evil.example.com" }))!,
    /Origin/,
  );
  assert.match((await refusal(guard, { host: "127.0.0.1", origin: "not a url" }))!, /Origin/);
  for (const name of ["127.0.0.1.evil.com", "127.attacker.example", "localhost.evil.com"]) {
    assert.equal(isLoopback(name), false, name);
    assert.notEqual(await refusal(guard, { host: name }), undefined, name);
    assert.notEqual(
      await refusal(guard, { host: "127.0.0.1", origin: `http://${name}` }),
      undefined,
    );
  }
  assert.equal(isLoopback("0.0.0.0"), false);
  assert.equal(isLoopback("127.0.0.2"), true);
  assert.equal(isLoopback("LOCALHOST"), true);
});

Deno.test("rebindingGuard() lets ALLOWED_HOSTS and the bound address through, Host and Origin", async () => {
  const guard = rebindingGuard(["my.tunnel.dev"], "127.0.0.5");
  assert.equal(await refusal(guard, { host: "my.tunnel.dev" }), undefined);
  assert.equal(
    await refusal(guard, { host: "127.0.0.5:1", origin: "https://my.tunnel.dev" }),
    undefined,
  );
  assert.match((await refusal(guard, { host: "127.0.0.6" }))!, /127\.0\.0\.6/);
  assert.notEqual(
    await refusal(guard, { host: "my.tunnel.dev", origin: "http://127.0.0.1.evil.com" }),
    undefined,
  );
  assert.equal(await refusal(rebindingGuard([], "::1"), { host: "[::1]:8787" }), undefined);
});
