import assert from "node:assert/strict";
import { loadTableSettings, staleMs } from "./settings.ts";

const env = (vars: Record<string, string>) => new Map(Object.entries(vars));

Deno.test("loadTableSettings() gives the documented defaults", () => {
  const s = loadTableSettings(env({}));
  assert.equal(s.defaultWorkspace, "main");
  assert.equal(s.staleDays, 7);
  assert.equal(s.approvalSecret, undefined);
  assert.equal(s.viewToken, undefined);
  assert.equal(s.viewTimeZone, "UTC");
  assert.deepEqual(
    [
      s.limits.titleMaxChars,
      s.limits.messageMaxBytes,
      s.limits.bodyMaxBytes,
      s.limits.nameMaxChars,
    ],
    [200, 32768, 49152, 140],
  );
  assert.deepEqual([s.limits.pageDefault, s.limits.pageMax], [50, 200]);
});

Deno.test("loadTableSettings() reads decimals of days, zones and workspaces, and names a bad one", () => {
  const s = loadTableSettings(env({
    TABLE_STALE_DAYS: "0.5",
    TABLE_DEFAULT_WORKSPACE: "Acme/App",
    VIEW_TIME_ZONE: "Europe/Berlin",
  }));
  assert.equal(staleMs(s), 12 * 3_600_000);
  assert.equal(s.defaultWorkspace, "acme/app");
  assert.equal(s.viewTimeZone, "Europe/Berlin");
  assert.throws(() => loadTableSettings(env({ TABLE_STALE_DAYS: "0" })), /TABLE_STALE_DAYS/);
  assert.throws(() => loadTableSettings(env({ TABLE_STALE_DAYS: "1e3" })), /TABLE_STALE_DAYS/);
  assert.throws(() => loadTableSettings(env({ VIEW_TIME_ZONE: "Mars/Base" })), /IANA/);
  assert.throws(() => loadTableSettings(env({ VIEW_TOKEN: "short" })), /VIEW_TOKEN/);
  assert.throws(() => loadTableSettings(env({ APPROVAL_SECRET: "1234" })), /APPROVAL_SECRET/);
  assert.throws(
    () => loadTableSettings(env({ TABLE_DEFAULT_WORKSPACE: "w".repeat(141) })),
    /TABLE_DEFAULT_WORKSPACE/,
  );
  assert.throws(
    () => loadTableSettings(env({ TABLE_BODY_MAX_BYTES: "70000" })),
    /TABLE_BODY_MAX_BYTES must be a whole number from 1024 to 57344/,
  );
});
