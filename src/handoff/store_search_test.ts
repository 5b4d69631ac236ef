import assert from "node:assert/strict";
import { CHUNK_BYTES } from "../kit/chunks.ts";
import { appendHandoff } from "./store_append.ts";
import { input, LIMITS, rejectsWith, withKv } from "../../tests/support/handoff_store.ts";
import { saveHandoff } from "./store_save.ts";
import { CHUNK_SCAN_FROM, searchHandoffs } from "./store_search.ts";

/** A conversation with `needle` placed so its bytes straddle the first chunk boundary. */
function straddling(needle: string): string {
  const before = "ä".repeat((CHUNK_BYTES - 4) / 2); // 2-byte characters up to 4 bytes short
  return `${before}${needle}${"z".repeat(70_000)}`;
}

for (const count of [CHUNK_SCAN_FROM - 10, CHUNK_SCAN_FROM + 10]) {
  const path = count >= CHUNK_SCAN_FROM ? "one chunk scan" : "point reads";
  Deno.test(`searchHandoffs() finds text across chunk boundaries (${count} handoffs, ${path})`, async () => {
    await withKv(async (kv) => {
      for (let i = 0; i < count; i++) {
        await saveHandoff(kv, LIMITS, {
          key: `h${i}`,
          summary: `plain ${i}`,
          conversation: i === 7 ? straddling("Nëedle-日本") : `## User\nnothing ${i}\n`,
        });
      }
      await appendHandoff(kv, LIMITS, "h3", "…later the NËEDLE-日本 shows up");
      const r = await searchHandoffs(kv, LIMITS, { query: "nëedle-日本", limit: 10 });
      assert.deepEqual(r.items.map((h) => h.key), ["h3", "h7"], "newest first");
      assert.equal(r.scanned, count);
      const none = await searchHandoffs(kv, LIMITS, { query: "needle.*", limit: 10 });
      assert.deepEqual(none.items, [], "the query is literal text, not a pattern");
      const cut = await searchHandoffs(kv, LIMITS, { query: "plain", limit: 5 });
      assert.equal(cut.items.length, 5);
      assert.equal(cut.hasMore, true);
      assert.equal(cut.items[0].key, "h3");
    });
  });
}

Deno.test("searchHandoffs() reads dates as UTC, like every stored time, whatever the server's zone", async () => {
  const zone = Deno.env.get("TZ");
  Deno.env.set("TZ", "Asia/Tokyo"); // a local server on a laptop nine hours ahead of UTC
  try {
    await withKv(async (kv) => {
      const { handoff } = await saveHandoff(kv, LIMITS, {
        key: "k",
        summary: "s",
        conversation: "## User\nhi\n",
      });
      const created = Date.parse(handoff.createdAt);
      const local = (ms: number) => new Date(ms).toISOString().slice(0, 19); // no zone suffix
      const keys = async (filter: { createdAfter?: string; createdBefore?: string }) =>
        (await searchHandoffs(kv, LIMITS, { limit: 5, ...filter })).items.map((h) => h.key);
      assert.deepEqual(await keys({ createdBefore: local(created + 60_000) }), ["k"]);
      assert.deepEqual(await keys({ createdAfter: local(created + 60_000) }), []);
      const tokyo = `${local(created + 60_000 + 9 * 3_600_000)}+09:00`; // a minute later
      assert.deepEqual(await keys({ createdAfter: tokyo }), []);
      assert.deepEqual(await keys({ createdBefore: tokyo }), ["k"]);
      assert.deepEqual(await keys({ createdAfter: handoff.createdAt.slice(0, 10) }), ["k"]);
    });
  } finally {
    if (zone === undefined) Deno.env.delete("TZ");
    else Deno.env.set("TZ", zone);
  }
});

Deno.test("searchHandoffs() refuses dates that are not ISO-8601 or not on the calendar", async () => {
  await withKv(async (kv) => {
    for (const bad of ["June 1, 2025", "1", "2025-02-30", "2025-06-01T25:00", "yesterday"]) {
      await assert.rejects(
        () => searchHandoffs(kv, LIMITS, { limit: 5, createdAfter: bad }),
        /created_after must be an ISO-8601 date/,
        bad,
      );
    }
  });
});

Deno.test("searchHandoffs() filters by tags, text, origin, status and dates", async () => {
  await withKv(async (kv) => {
    await saveHandoff(
      kv,
      LIMITS,
      input({
        key: "a",
        tags: ["deno", "kv"],
        fromAi: "Claude Desktop",
        fromProject: "handoff-mcp",
        conversation: "## User\nThe LEASE design\n",
      }),
    );
    await saveHandoff(
      kv,
      LIMITS,
      input({
        key: "b",
        tags: ["deno"],
        fromAi: "Cursor",
        status: "completed",
        summary: "Lease notes",
      }),
    );
    await saveHandoff(kv, LIMITS, input({ key: "c", tags: ["web"] }));
    const keys = async (f: Partial<Parameters<typeof searchHandoffs>[2]>) =>
      (await searchHandoffs(kv, LIMITS, { limit: 10, ...f })).items.map((h) => h.key);
    assert.deepEqual(await keys({ tags: ["KV", "web"] }), ["c", "a"]);
    assert.deepEqual(await keys({ tagsAll: ["deno", "kv"] }), ["a"]);
    assert.deepEqual(await keys({ query: "lease" }), ["b", "a"], "summary and conversation");
    assert.deepEqual(await keys({ fromAi: "claude" }), ["a"]);
    assert.deepEqual(await keys({ fromProject: "HANDOFF" }), ["a"]);
    assert.deepEqual(await keys({ status: "completed" }), ["b"]);
    assert.deepEqual(await keys({ createdAfter: "2000-01-01", createdBefore: "2999-01-01" }), [
      "c",
      "b",
      "a",
    ]);
    assert.deepEqual(await keys({ createdAfter: "2999-01-01" }), []);
    const cut = await searchHandoffs(kv, LIMITS, { limit: 2 });
    assert.equal(cut.hasMore, true);
    assert.equal(cut.items.length, 2);
    await rejectsWith(
      () => searchHandoffs(kv, LIMITS, { limit: 5, createdAfter: "last tuesday" }),
      "invalid",
      /created_after must be an ISO-8601 date/,
    );
    await rejectsWith(
      () => searchHandoffs(kv, LIMITS, { limit: 5, status: "open" }),
      "invalid",
      /status must be one of/,
    );
  });
});

Deno.test("searchHandoffs() refuses filters with a lone surrogate", async () => {
  await withKv(async (kv) => {
    await saveHandoff(kv, LIMITS, input({ key: "one" }));
    const base = { limit: 10 };
    for (const filter of [{ query: "a\uD800" }, { fromAi: "\uDC00" }, { fromProject: "p\uDBFF" }]) {
      await rejectsWith(
        () => searchHandoffs(kv, LIMITS, { ...base, ...filter }),
        "invalid",
        /lone UTF-16 surrogate/,
      );
    }
  });
});
