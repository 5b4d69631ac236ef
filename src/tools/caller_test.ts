import assert from "node:assert/strict";
import { loadConfig } from "../config.ts";
import { authInfoOf, callerOf, defaultCaller, stdioCaller } from "./caller.ts";
import type { McpDeps } from "./toolset.ts";

const config = loadConfig(new Map([["KV_PATH", ":memory:"]]));
const deps = { config, caller: { name: "local-user", via: "local" } } as unknown as McpDeps;

Deno.test("callerOf() reads the caller an authInfoOf() authInfo carries, else the process default", () => {
  const carried = { name: "codex", via: "token" as const };
  const authInfo = authInfoOf(carried);
  assert.equal(callerOf({ http: { authInfo } }, deps), carried);
  assert.deepEqual(callerOf({}, deps), { name: "local-user", via: "local" });
  assert.deepEqual(callerOf(undefined, deps), { name: "local-user", via: "local" });
  // An authInfo the front did not make (another shape, even one naming a caller) carries none.
  const odd = { token: "", clientId: "x", scopes: [], extra: { caller: carried } };
  assert.deepEqual(callerOf({ http: { authInfo: odd } }, deps), {
    name: "local-user",
    via: "local",
  });
});

Deno.test("authInfoOf() names the client and holds no secret", () => {
  assert.deepEqual(authInfoOf({ name: "codex", via: "token" }), {
    token: "",
    clientId: "codex",
    scopes: [],
  });
  assert.equal(authInfoOf({ name: "a", via: "oauth", clientId: "c1" }).clientId, "c1");
});

Deno.test("defaultCaller() is DEFAULT_CLIENT_NAME via default, anonymous when unset", () => {
  assert.deepEqual(defaultCaller(config), { name: "anonymous", via: "default" });
  const named = loadConfig(new Map([["DEFAULT_CLIENT_NAME", "alice"]]));
  assert.deepEqual(defaultCaller(named), { name: "alice", via: "default" });
});

Deno.test("stdioCaller() takes --client-name, else CLIENT_NAME, else the default name, via local", () => {
  const env = (vars: Record<string, string>) => loadConfig(new Map(Object.entries(vars)));
  assert.deepEqual(stdioCaller(env({}), ["--stdio"]), { name: "anonymous", via: "local" });
  assert.deepEqual(stdioCaller(env({ DEFAULT_CLIENT_NAME: "bob" }), []), {
    name: "bob",
    via: "local",
  });
  assert.deepEqual(stdioCaller(env({ CLIENT_NAME: "claude" }), ["--stdio"]), {
    name: "claude",
    via: "local",
  });
  assert.deepEqual(
    stdioCaller(env({ CLIENT_NAME: "claude" }), ["--stdio", "--client-name", "codex"]),
    { name: "codex", via: "local" },
  );
  assert.deepEqual(stdioCaller(env({}), ["--client-name=gemini", "--stdio"]), {
    name: "gemini",
    via: "local",
  });
  assert.throws(() => stdioCaller(env({}), ["--stdio", "--client-name"]), /needs a value/);
  assert.throws(
    () => stdioCaller(env({}), [`--client-name=${"x".repeat(141)}`]),
    /--client-name is 141 characters; at most 140/,
  );
  assert.throws(() => env({ CLIENT_NAME: "a\u0001b" }), /CLIENT_NAME must be one line/);
});
