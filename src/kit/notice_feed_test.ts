import assert from "node:assert/strict";
import { tempKvPath } from "../../tests/support/harness.ts";
import { atomic } from "./commit.ts";
import { AppError } from "./errors.ts";
import { bumpNotices, feedModeOf, noticeKey } from "./notice_feed.ts";
import { DEFAULT_NOTICE_SETTINGS, loadNoticeSettings } from "./notice_settings.ts";
import { NoticeBus } from "./notices.ts";

const FAST = { ...DEFAULT_NOTICE_SETTINGS, pollMs: 10 };

/** Commits a bump of `topics` on `kv` and returns its versionstamp. */
async function bump(kv: Deno.Kv, ...topics: string[]): Promise<string> {
  const op = atomic(kv);
  bumpNotices(op, topics);
  const r = await op.commit();
  assert.ok(r.ok);
  return r.versionstamp;
}

/** Waits (bounded) until `heard` holds `n` notices. */
async function heardAtLeast(heard: string[], n: number): Promise<void> {
  for (let i = 0; i < 500 && heard.length < n; i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(heard.length >= n, `heard ${heard.length} of ${n} notices: ${heard.join(", ")}`);
}

for (const mode of ["poll", "watch"] as const) {
  Deno.test(`NoticeBus (${mode}) hears another KV handle's writes once, and its own commits once`, async () => {
    const file = await tempKvPath();
    // A second handle on the file is another writer, as another isolate is on Deploy; another
    // process is tests/table_notices_test.ts.
    const mine = await Deno.openKv(file.path);
    const other = await Deno.openKv(file.path);
    const bus = new NoticeBus();
    bus.connect(mine, mode, FAST);
    try {
      const heard: string[] = [];
      const stop = bus.listen("t/1", (t) => heard.push(t));
      const stops = Array.from({ length: 12 }, (_, i) => bus.listen(`t/x${i}`, () => {}));
      await bus.ready();
      assert.deepEqual(heard, [], "the first read is a baseline, not a notice");
      await bump(other, "t/1");
      await heardAtLeast(heard, 1);
      // This process's own commit: told at once by `committed`, never again by the feed.
      const vs = await bump(mine, "t/1");
      bus.committed(["t/1"], vs);
      assert.equal(heard.length, 2);
      await new Promise((r) => setTimeout(r, 60));
      assert.equal(heard.length, 2, "the feed does not repeat what committed told");
      // A topic past the first ten keys (its own watch or getMany) is heard too.
      const late: string[] = [];
      const stopLate = bus.listen("t/x11", (t) => late.push(t));
      await bus.ready();
      await bump(other, "t/x11");
      await heardAtLeast(late, 1);
      stop();
      stopLate();
      stops.forEach((s) => s());
      assert.equal(bus.listeners(), 0);
      await bump(other, "t/1");
      await new Promise((r) => setTimeout(r, 40));
      assert.equal(heard.length, 2, "nobody listens: nothing is told");
    } finally {
      bus.close();
      mine.close();
      other.close();
      await file.cleanup();
    }
  });
}

Deno.test("NoticeBus.committed tells listeners without a feed, and only topics listened to", () => {
  const bus = new NoticeBus();
  const heard: string[] = [];
  bus.listen("a", (t) => heard.push(t));
  bus.committed(["a", "b", "a"], "00000000000000010000");
  assert.deepEqual(heard, ["a"]);
});

Deno.test("NoticeBus limits: listeners and topics are refused by name", () => {
  const bus = new NoticeBus({ ...DEFAULT_NOTICE_SETTINGS, listenersMax: 3, topicsMax: 2 });
  const stops = [bus.listen("t/1", () => {}), bus.listen("t/2", () => {})];
  assert.throws(
    () => bus.listen("t/3", () => {}),
    (e: unknown) =>
      e instanceof AppError && e.kind === "full" && /NOTICE_TOPICS_MAX/.test(e.message),
  );
  bus.listen("t/1", () => {});
  assert.throws(
    () => bus.listen("t/1", () => {}),
    (e: unknown) =>
      e instanceof AppError && /at most 3 listeners \(NOTICE_LISTENERS_MAX\)/.test(e.message),
  );
  stops.forEach((stop) => stop());
  assert.equal(bus.listeners(), 1);
});

Deno.test("feedModeOf(): watch where KV sees other writers, poll on a file, none in memory", () => {
  assert.equal(feedModeOf("https://api.deno.com/databases/x/connect", false), "watch");
  assert.equal(feedModeOf(undefined, true), "watch");
  assert.equal(feedModeOf("data/handoff.kv", false), "poll");
  assert.equal(feedModeOf(":memory:", false), "none");
  assert.deepEqual(noticeKey("table/discussion/x"), ["notice", "table/discussion/x"]);
});

Deno.test("loadNoticeSettings() names a bad variable", () => {
  assert.equal(loadNoticeSettings(new Map([["NOTICE_POLL_MS", "50"]])).pollMs, 50);
  assert.throws(
    () => loadNoticeSettings(new Map([["NOTICE_LISTENERS_MAX", "0"]])),
    /NOTICE_LISTENERS_MAX must be a whole number from 1/,
  );
});
