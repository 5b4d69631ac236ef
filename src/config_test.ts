import assert from "node:assert/strict";
import { closedReason, DEFAULT_KV_PATH, loadConfig } from "./config.ts";

const env = (vars: Record<string, string>) => new Map(Object.entries(vars));

Deno.test("loadConfig() gives the documented defaults", () => {
  const config = loadConfig(env({}));
  assert.equal(config.port, 8787);
  assert.equal(config.host, "127.0.0.1");
  assert.equal(config.kvPath, DEFAULT_KV_PATH.slice(2));
  assert.equal(loadConfig(env({}), "/srv/app/").kvPath, "/srv/app/data/handoff.kv");
  assert.equal(loadConfig(env({ KV_PATH: "rel.kv" }), "/srv/app").kvPath, "rel.kv");
  assert.equal(config.authToken, undefined);
  assert.equal(config.onDeploy, false);
  assert.equal(closedReason(config), undefined);
});

Deno.test("loadConfig() names the bad variable and what is allowed", () => {
  assert.throws(
    () => loadConfig(env({ PORT: "http" })),
    /PORT must be a whole number from 0 to 65535/,
  );
  assert.throws(() => loadConfig(env({ PORT: "70000" })), /PORT must be .* got 70000/);
  assert.throws(() => loadConfig(env({ AUTH_TOKEN: "a/b" })), /AUTH_TOKEN must use only URL-safe/);
  assert.throws(() => loadConfig(env({ HOST: "no such host" })), /HOST must be a host name or IP/);
});

Deno.test("loadConfig() on Deno Deploy uses the attached KV and fails closed without a long token", () => {
  const bare = loadConfig(env({ DENO_DEPLOYMENT_ID: "abc" }));
  assert.equal(bare.kvPath, undefined);
  assert.match(closedReason(bare)!, /AUTH_TOKEN is not set/);
  const short = loadConfig(env({ DENO_DEPLOYMENT_ID: "abc", AUTH_TOKEN: "short" }));
  assert.match(closedReason(short)!, /at least 32 characters/);
  const base64 = loadConfig(env({ DENO_DEPLOYMENT_ID: "abc", AUTH_TOKEN: "a+b/c=".repeat(8) }));
  assert.equal(base64.authToken, undefined);
  assert.match(closedReason(base64)!, /URL-safe characters/);
  const good = loadConfig(env({ DENO_DEPLOYMENT_ID: "abc", AUTH_TOKEN: "x".repeat(32) }));
  assert.equal(closedReason(good), undefined);
});
