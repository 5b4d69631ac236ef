import assert from "node:assert/strict";
import { DEFAULT_FOCUS_LIMITS, loadFocusSettings } from "./settings.ts";

Deno.test("loadFocusSettings() reads FOCUS_OPEN_FOLLOWUPS_MAX and names it when bad", () => {
  assert.deepEqual(loadFocusSettings(new Map()), DEFAULT_FOCUS_LIMITS);
  const set = loadFocusSettings(new Map([["FOCUS_OPEN_FOLLOWUPS_MAX", "7"]]));
  assert.equal(set.openFollowUpsMax, 7);
  assert.throws(
    () => loadFocusSettings(new Map([["FOCUS_OPEN_FOLLOWUPS_MAX", "0"]])),
    /FOCUS_OPEN_FOLLOWUPS_MAX must be a whole number from 1 to 10000/,
  );
});
