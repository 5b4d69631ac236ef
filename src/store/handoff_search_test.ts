import assert from "node:assert/strict";
import { DEFAULT_HANDOFF_LIMITS } from "../config.ts";
import { CHUNK_BYTES } from "./chunks.ts";
import { appendHandoff, saveHandoff } from "./handoff.ts";
import { CHUNK_SCAN_FROM, searchHandoffs } from "./handoff_search.ts";

const LIMITS = { ...DEFAULT_HANDOFF_LIMITS };

async function withKv(fn: (kv: Deno.Kv) => Promise<void>): Promise<void> {
  const kv = await Deno.openKv(":memory:");
  try {
    await fn(kv);
  } finally {
    kv.close();
  }
}

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
