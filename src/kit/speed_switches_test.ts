import assert from "node:assert/strict";
import { parseSwitches, SPEED_SWITCHES } from "./speed_switches.ts";

Deno.test("BENCH_SWITCHES: unset turns nothing off; off:a,b turns those off; a typo is refused", () => {
  assert.deepEqual(parseSwitches(undefined), new Set());
  assert.deepEqual(parseSwitches(" "), new Set());
  assert.deepEqual(
    parseSwitches("off:state_cache, key_batch"),
    new Set(["state_cache", "key_batch"]),
  );
  assert.throws(
    () => parseSwitches("off:key_bach"),
    /BENCH_SWITCHES names "key_bach"; allowed: key_batch/,
  );
  // A removed switch is refused like a typo, so a stale bench row never measures nothing.
  assert.throws(
    () => parseSwitches("off:group_commit"),
    /BENCH_SWITCHES names "group_commit"; allowed: key_batch/,
  );
  assert.throws(() => parseSwitches("key_batch"), /BENCH_SWITCHES must be "off:"/);
});

/** A process with every switch off: concurrent writes to one project land exactly as with them on. */
const SCRIPT = `
import { speedOn } from "./src/kit/speed_switches.ts";
import { addTask } from "./src/focus/store.ts";
import { getState } from "./src/focus/store_state.ts";
import { DEFAULT_FOCUS_LIMITS } from "./src/focus/settings.ts";
const off = ${JSON.stringify(Object.keys(SPEED_SWITCHES))}.filter((n) => !speedOn(n));
const kv = await Deno.openKv(":memory:");
const limits = { ...DEFAULT_FOCUS_LIMITS, openFollowUpsMax: 15 };
const results = await Promise.allSettled(
  Array.from({ length: 20 }, (_, i) => addTask(kv, limits, "p", "t" + i, "cleanup")),
);
const state = await getState(kv, limits, "p");
console.log(JSON.stringify({
  off,
  added: results.filter((r) => r.status === "fulfilled").length,
  refused: results.filter((r) => r.status === "rejected" && /at most 15/.test(r.reason.message)).length,
  open: state.project.openFollowUps,
  listed: state.followUps.length,
}));
kv.close();
`;

Deno.test("every switch off: the switches take effect, and concurrent writes still land exactly", async () => {
  const all = Object.keys(SPEED_SWITCHES);
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--unstable-kv", "--lock=deno.test.lock", "--ext=ts", SCRIPT],
    cwd: new URL("../..", import.meta.url),
    env: { BENCH_SWITCHES: `off:${all.join(",")}`, NO_COLOR: "1" },
    stderr: "inherit",
  }).output();
  assert.equal(out.code, 0);
  const result = JSON.parse(new TextDecoder().decode(out.stdout));
  assert.deepEqual(result, { off: all, added: 15, refused: 5, open: 15, listed: 15 });
});
