/**
 * handoff_save and handoff_load latency for 10 KiB and 1 MiB conversations, and handoff_search
 * over 1,000 handoffs, all over Streamable HTTP against a KV file, with a ping as baseline.
 */

import { DEFAULT_HANDOFF_LIMITS } from "../src/handoff/settings.ts";
import { saveHandoff } from "../src/handoff/store_save.ts";
import { call, connect, startServer, tempKvPath } from "../tests/support/harness.ts";
import { type BenchGroup, measure, ratio } from "./lib.ts";

/** A conversation of about `bytes` UTF-8 bytes, mixed ASCII and multi-byte text. */
function conversation(bytes: number, seed: number): string {
  const unit = `## User\nQuestion ${seed} about the chunked store — ünïcödé 日本語\n\n` +
    `## Assistant\nAnswer ${seed}: chunks of 60 KB under a manifest swapped in last.\n\n`;
  const size = new TextEncoder().encode(unit).byteLength;
  return unit.repeat(Math.max(1, Math.floor(bytes / size)));
}

/** Runs the handoff suite. */
export async function benchHandoff(): Promise<Record<string, unknown>> {
  const kvFile = await tempKvPath();
  const server = await startServer({ env: { KV_PATH: kvFile.path } });
  const client = await connect(server, "http");
  try {
    const ping = await measure(() => client.ping(), 200);
    const small = conversation(10 * 1024, 1);
    const large = conversation(1024 * 1024 - 512, 2);
    let n = 0;
    const save = (text: string, prefix: string) => async () => {
      const r = await call(client, "handoff_save", {
        key: `${prefix}-${n++}`,
        summary: "benchmark",
        conversation: text,
      });
      if (r.isError) throw new Error(r.text);
    };
    const load = (key: string) => async () => {
      const r = await call(client, "handoff_load", { key });
      if (r.isError) throw new Error(r.text);
    };
    const save10k = await measure(save(small, "s10k"), 100, 10);
    const save1m = await measure(save(large, "s1m"), 20, 3);
    await call(client, "handoff_save", { key: "l10k", summary: "b", conversation: small });
    await call(client, "handoff_save", { key: "l1m", summary: "b", conversation: large });
    const load10k = await measure(load("l10k"), 100, 10);
    // A 1 MiB conversation comes in pages within the result budget (tools/result_budget.ts): the
    // first page, a page from the middle, and every page of it read one after another.
    const load1m = await measure(load("l1m"), 20, 3);
    const fromChars: number[] = [];
    for (let args: Record<string, unknown> = { key: "l1m" };;) {
      const r = await call(client, "handoff_load", args);
      if (r.isError) throw new Error(r.text);
      if (!r.structured.has_more) break;
      fromChars.push(r.structured.next_from_char as number);
      args = { key: "l1m", from_char: r.structured.next_from_char };
    }
    const middle = fromChars[Math.floor(fromChars.length / 2)];
    const loadMiddle = await measure(
      async () => {
        const r = await call(client, "handoff_load", { key: "l1m", from_char: middle });
        if (r.isError) throw new Error(r.text);
      },
      20,
      3,
    );
    const loadAll = await measure(
      async () => {
        for (const from of [undefined, ...fromChars]) {
          const r = await call(
            client,
            "handoff_load",
            from === undefined ? { key: "l1m" } : {
              key: "l1m",
              from_char: from,
            },
          );
          if (r.isError) throw new Error(r.text);
        }
      },
      5,
      1,
    );

    // 1,000 handoffs of ~10 KiB, written through the store to keep the setup short.
    await call(client, "handoff_clear", { confirm: "DELETE ALL" });
    const limits = DEFAULT_HANDOFF_LIMITS;
    const tags = ["deno", "kv", "design", "auth", "web", "ops", "ui", "docs"];
    for (let i = 0; i < 1000; i++) {
      await saveHandoff(server.kv, limits, {
        key: `h-${i}`,
        summary: `Handoff ${i} about ${tags[i % tags.length]}`,
        conversation: conversation(10 * 1024, i) + (i === 17 ? "the needle\n" : ""),
        tags: [tags[i % tags.length], tags[(i * 3) % tags.length]],
        fromAi: i % 2 ? "Claude Desktop" : "Cursor",
      });
    }
    const search = (args: Record<string, unknown>) => async () => {
      const r = await call(client, "handoff_search", args);
      if (r.isError) throw new Error(r.text);
    };
    const searchTag = await measure(search({ tags: ["auth"], limit: 20 }), 30, 3);
    const searchMeta = await measure(
      search({ from_ai: "claude", status: "active", limit: 100 }),
      30,
      3,
    );
    const searchText = await measure(search({ query: "THE NEEDLE", limit: 20 }), 20, 3);
    const listPage = await measure(() => call(client, "handoff_list", { limit: 20 }), 50, 5);
    const stats = await measure(() => call(client, "handoff_stats"), 20, 3);

    return {
      transport: "Streamable HTTP, KV file",
      conversation_bytes: {
        small: new TextEncoder().encode(small).byteLength,
        large: new TextEncoder().encode(large).byteLength,
      },
      ping,
      save_10kib: save10k,
      save_1mib: save1m,
      load_10kib: load10k,
      load_1mib: load1m,
      load_1mib_pages: fromChars.length + 1,
      load_1mib_middle_page: loadMiddle,
      load_1mib_all_pages: loadAll,
      search_1000_by_tag: searchTag,
      search_1000_by_metadata: searchMeta,
      search_1000_full_text: searchText,
      list_page_20_of_1000: listPage,
      stats_1000: stats,
      ratios: {
        save_1mib_vs_10kib: ratio(save1m, save10k),
        load_1mib_vs_10kib: ratio(load1m, load10k),
        load_1mib_all_pages_vs_first: ratio(loadAll, load1m),
        save_10kib_vs_ping: ratio(save10k, ping),
        load_10kib_vs_ping: ratio(load10k, ping),
        search_full_text_vs_by_tag: ratio(searchText, searchTag),
        search_by_tag_vs_list_page: ratio(searchTag, listPage),
      },
    };
  } finally {
    await client.close();
    await server.close();
    await kvFile.cleanup();
  }
}

/** The `handoff` benchmark group: latencies and ratios, no goals of its own yet. */
export const handoffGroup: BenchGroup = {
  name: "handoff",
  what: "handoff_save/load 10 KiB and 1 MiB, search over 1,000 handoffs (one client, in-process)",
  run: async () => ({ goals: [], ...(await benchHandoff()) }),
};
