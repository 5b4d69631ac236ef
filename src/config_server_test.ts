import assert from "node:assert/strict";
import {
  DEFAULT_SHUTDOWN_GRACE_MS,
  DEFAULT_SSE_IDLE_MS,
  DEFAULT_SSE_MAX_SESSIONS,
  loadConfig,
} from "./config.ts";

const config = (vars: Record<string, string>) => loadConfig(new Map(Object.entries(vars)));

Deno.test("loadConfig() reads SSE_MAX_SESSIONS, SSE_IDLE_MS and SHUTDOWN_GRACE_MS with named defaults", () => {
  const d = config({});
  assert.equal(d.sseMaxSessions, DEFAULT_SSE_MAX_SESSIONS);
  assert.equal(d.sseMaxSessions, 100);
  assert.equal(d.sseIdleMs, DEFAULT_SSE_IDLE_MS);
  assert.equal(d.sseIdleMs, 30 * 60 * 1000);
  assert.equal(d.shutdownGraceMs, DEFAULT_SHUTDOWN_GRACE_MS);
  const set = config({ SSE_MAX_SESSIONS: "3", SSE_IDLE_MS: "500", SHUTDOWN_GRACE_MS: "0" });
  assert.deepEqual([set.sseMaxSessions, set.sseIdleMs, set.shutdownGraceMs], [3, 500, 0]);
  assert.throws(() => config({ SSE_MAX_SESSIONS: "0" }), /SSE_MAX_SESSIONS must be a whole number/);
  assert.throws(() => config({ SSE_IDLE_MS: "10" }), /SSE_IDLE_MS must be a whole number from 100/);
  assert.throws(() => config({ SHUTDOWN_GRACE_MS: "-1" }), /SHUTDOWN_GRACE_MS must be/);
  assert.throws(() => config({ SHUTDOWN_GRACE_MS: "700000" }), /SHUTDOWN_GRACE_MS .* 600000/);
});
