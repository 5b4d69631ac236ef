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

Deno.test("loadConfig() reads AUTH_TOKENS as name=token pairs and refuses malformed ones", () => {
  const t1 = "a".repeat(20);
  const t2 = "b".repeat(20);
  const config = loadConfig(env({ AUTH_TOKENS: ` codex=${t1} , Manus=${t2}` }));
  assert.deepEqual(config.namedTokens, [{ name: "codex", token: t1 }, {
    name: "Manus",
    token: t2,
  }]);
  assert.deepEqual(loadConfig(env({})).namedTokens, []);
  assert.throws(() => loadConfig(env({ AUTH_TOKENS: t1 })), /AUTH_TOKENS entries must look like/);
  assert.throws(() => loadConfig(env({ AUTH_TOKENS: `=${t1}` })), /must look like name=token/);
  assert.throws(() => loadConfig(env({ AUTH_TOKENS: "codex=short" })), /at least 16 characters/);
  assert.throws(
    () => loadConfig(env({ AUTH_TOKENS: `codex=${t1}/x` })),
    /token of "codex" must use only URL-safe/,
  );
  assert.throws(
    () => loadConfig(env({ AUTH_TOKENS: `codex=${t1},CODEX=${t2}` })),
    /names "CODEX" twice/,
  );
  assert.throws(
    () => loadConfig(env({ AUTH_TOKENS: `codex=${t1},manus=${t1}` })),
    /same token as another name/,
  );
  assert.throws(
    () => loadConfig(env({ AUTH_TOKEN: t1, AUTH_TOKENS: `codex=${t1}` })),
    /same token as AUTH_TOKEN/,
  );
  assert.throws(
    () => loadConfig(env({ AUTH_TOKENS: `${"n".repeat(141)}=${t1}` })),
    /at most 140 are allowed/,
  );
  assert.throws(
    () => loadConfig(env({ AUTH_TOKENS: `codex\u200B=${t1}` })),
    /AUTH_TOKENS name "codex\u200B" holds U\+200B, an invisible or direction-control character/,
  );
  assert.throws(
    () => loadConfig(env({ CLIENT_NAME: "\u202Eclaude" })),
    /CLIENT_NAME holds U\+202E/,
  );
  assert.throws(
    () => loadConfig(env({ DENO_DEPLOYMENT_ID: "x", AUTH_TOKENS: `codex=${t1}` })),
    /at least 32 characters/,
  );
});

Deno.test("loadConfig() reads DEFAULT_CLIENT_NAME (default anonymous) and CLIENT_NAME, checked as names", () => {
  assert.equal(loadConfig(env({})).defaultClientName, "anonymous");
  assert.equal(loadConfig(env({})).clientName, undefined);
  assert.equal(loadConfig(env({ DEFAULT_CLIENT_NAME: " team " })).defaultClientName, "team");
  assert.equal(loadConfig(env({ CLIENT_NAME: "claude" })).clientName, "claude");
  assert.throws(
    () => loadConfig(env({ DEFAULT_CLIENT_NAME: "x".repeat(141) })),
    /DEFAULT_CLIENT_NAME is 141 characters; at most 140/,
  );
});

Deno.test("loadConfig() refuses a DEFAULT_CLIENT_NAME that is the owner's name (issue 23, case 7)", () => {
  assert.throws(
    () => loadConfig(env({ DEFAULT_CLIENT_NAME: "owner" })),
    /DEFAULT_CLIENT_NAME and OWNER_NAME are both "owner": a client that names nobody would be taken for the owner/,
  );
  assert.throws(
    () => loadConfig(env({ DEFAULT_CLIENT_NAME: "ada", OWNER_NAME: " Ada " })),
    /DEFAULT_CLIENT_NAME and OWNER_NAME are both "ada"/,
  );
  assert.equal(loadConfig(env({ OWNER_NAME: "anonymous2" })).defaultClientName, "anonymous");
  assert.throws(() => loadConfig(env({ OWNER_NAME: "anonymous" })), /OWNER_NAME/);
});

Deno.test("loadConfig() with OAUTH=on refuses an AUTH_TOKEN too short to be the consent page's secret", () => {
  // The consent page asks for AUTH_TOKEN when OAUTH_OWNER_SECRET is unset: the same minimum applies.
  assert.throws(
    () => loadConfig(env({ OAUTH: "on", AUTH_TOKEN: "tiny" })),
    /OAUTH=on asks for AUTH_TOKEN on the consent page .*4 characters.*at least 16.*OAUTH_OWNER_SECRET/,
  );
  assert.equal(loadConfig(env({ AUTH_TOKEN: "tiny" })).authToken, "tiny", "OAuth off: unchanged");
  const own = loadConfig(
    env({ OAUTH: "on", AUTH_TOKEN: "tiny", OAUTH_OWNER_SECRET: "o".repeat(16) }),
  );
  assert.equal(own.oauth.ownerSecret, "o".repeat(16));
  assert.equal(loadConfig(env({ OAUTH: "on", AUTH_TOKEN: "t".repeat(16) })).authToken?.length, 16);
  assert.equal(loadConfig(env({ OAUTH: "on" })).authToken, undefined, "the generated one is long");
});
