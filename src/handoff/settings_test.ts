import assert from "node:assert/strict";
import { loadHandoffSettings } from "./settings.ts";

Deno.test("loadHandoffSettings() reads the HANDOFF_* settings and names the bad one", () => {
  const settings = (env: Record<string, string>) =>
    loadHandoffSettings(new Map(Object.entries(env)));
  const d = settings({}).limits;
  assert.equal(d.conversationMaxBytes, 1024 * 1024);
  assert.equal(d.maxHandoffs, 1000);
  assert.equal(d.evictWhenFull, true);
  assert.equal(settings({}).auditLog, undefined);
  const set = settings({
    HANDOFF_MAX_COUNT: "5",
    HANDOFF_EVICT: "off",
    HANDOFF_SUMMARY_MAX_BYTES: "2000",
    HANDOFF_AUDIT_LOG: "/tmp/a.jsonl",
  });
  assert.equal(set.limits.maxHandoffs, 5);
  assert.equal(set.limits.evictWhenFull, false);
  assert.equal(set.limits.summaryMaxBytes, 2000);
  assert.equal(set.auditLog, "/tmp/a.jsonl");
  assert.throws(() => settings({ HANDOFF_EVICT: "maybe" }), /HANDOFF_EVICT must be true or false/);
  assert.throws(
    () => settings({ HANDOFF_MAX_COUNT: "0" }),
    /HANDOFF_MAX_COUNT must be a whole number from 1/,
  );
  assert.throws(
    () => settings({ HANDOFF_CONVERSATION_MAX_BYTES: String(64 * 1024 * 1024) }),
    /HANDOFF_CONVERSATION_MAX_BYTES must be a whole number from 1024 to 8388608/,
  );
});

Deno.test("HANDOFF_IMPORTED_MAX_COUNT bounds imported chats apart from HANDOFF_MAX_COUNT", () => {
  const settings = (env: Record<string, string>) =>
    loadHandoffSettings(new Map(Object.entries(env))).limits;
  assert.equal(settings({}).importedMax, 100_000);
  assert.equal(settings({ HANDOFF_IMPORTED_MAX_COUNT: "7" }).importedMax, 7);
  assert.throws(
    () => settings({ HANDOFF_IMPORTED_MAX_COUNT: "2000000" }),
    /HANDOFF_IMPORTED_MAX_COUNT must be a whole number from 0 to 1000000/,
  );
});
