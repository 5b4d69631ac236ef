import assert from "node:assert/strict";
import {
  DEFAULT_ACCESS_TTL_SECONDS,
  DEFAULT_MAX_FAILED_ATTEMPTS,
  loadOAuthSettings,
} from "./settings.ts";

const load = (vars: Record<string, string>) => loadOAuthSettings(new Map(Object.entries(vars)));

Deno.test("loadOAuthSettings() is off by default, with named defaults", () => {
  const s = load({});
  assert.equal(s.enabled, false);
  assert.equal(s.accessTtlMs, DEFAULT_ACCESS_TTL_SECONDS * 1000);
  assert.equal(s.maxFailedAttempts, DEFAULT_MAX_FAILED_ATTEMPTS);
  assert.equal(s.publicUrl, undefined);
  assert.equal(s.trustProxy, false);
});

Deno.test("loadOAuthSettings() reads OAUTH, PUBLIC_URL and CLIENT_NAME_ALIASES", () => {
  const s = load({
    OAUTH: "on",
    PUBLIC_URL: "https://handoff.example/",
    CLIENT_NAME_ALIASES: "client_a=Claude, client_b = ChatGPT",
  });
  assert.equal(s.enabled, true);
  assert.equal(s.publicUrl, "https://handoff.example");
  assert.deepEqual([...s.aliases], [["client_a", "Claude"], ["client_b", "ChatGPT"]]);
});

Deno.test("loadOAuthSettings() names the bad variable", () => {
  assert.throws(() => load({ OAUTH: "maybe" }), /OAUTH must be true or false/);
  assert.throws(() => load({ OAUTH_OWNER_SECRET: "short" }), /OAUTH_OWNER_SECRET is too short/);
  assert.throws(
    () => load({ PUBLIC_URL: "https://h.example/mcp" }),
    /PUBLIC_URL must be an origin/,
  );
  assert.throws(() => load({ PUBLIC_URL: "ftp://h.example" }), /PUBLIC_URL/);
  assert.throws(() => load({ CLIENT_NAME_ALIASES: "Claude" }), /CLIENT_NAME_ALIASES/);
  // An alias is a caller's name: the one client-name check refuses what a header would.
  assert.throws(
    () => load({ CLIENT_NAME_ALIASES: "client_a=Cla\u200bude" }),
    /CLIENT_NAME_ALIASES name of "client_a".*invisible/,
  );
  assert.throws(
    () => load({ CLIENT_NAME_ALIASES: `client_a=${"x".repeat(141)}` }),
    /141 characters; at most 140/,
  );
  assert.throws(() => load({ OAUTH_ACCESS_TOKEN_TTL_SECONDS: "5" }), /from 60 to 86400/);
});
