import assert from "node:assert/strict";
import { DEFAULT_THINKING_LIMITS, loadThinkingSettings } from "./settings.ts";

Deno.test("loadThinkingSettings() turns THOUGHT_RETENTION_DAYS into milliseconds", () => {
  assert.deepEqual(loadThinkingSettings(new Map()), DEFAULT_THINKING_LIMITS);
  const set = loadThinkingSettings(new Map([["THOUGHT_RETENTION_DAYS", "2"]]));
  assert.equal(set.retentionMs, 2 * 86_400_000);
  assert.throws(
    () => loadThinkingSettings(new Map([["THOUGHT_RETENTION_DAYS", "x"]])),
    /THOUGHT_RETENTION_DAYS must be a whole number from 0 to 3650/,
  );
});
