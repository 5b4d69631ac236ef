/**
 * The `search` group (issue 28): a corpus of real text (`BENCH_SEARCH_MESSAGES` messages,
 * default 20,000; the full run is 100,000, and `BENCH_SEARCH_HANDOFFS` handoffs,
 * default 200) written as the previous release wrote it, indexed as a first start does, then
 * searched through `main.ts` and through SQLite FTS5 behind the SDK's minimal server.
 */

import { Client, StreamableHTTPClientTransport } from "../src/client/sdk_client.ts";
import { DEFAULT_HANDOFF_LIMITS } from "../src/handoff/settings.ts";
import { saveHandoff } from "../src/handoff/store_save.ts";
import { setSearchIndexing } from "../src/kit/search_source.ts";
import { foldOnce } from "../src/search/fold.ts";
import { scanExisting } from "../src/search/indexer.ts";
import { mergeOnce } from "../src/search/merge.ts";
import { loadTableSettings } from "../src/table/settings.ts";
import { tableCtx } from "../src/table/store_common.ts";
import { createDiscussion, postMessage } from "../src/table/store_discussions.ts";
import { SEARCH_SOURCES } from "../src/toolsets.ts";
import { type BenchGroup, goal, percentile, round } from "./lib.ts";
import { startServerProcess } from "./process.ts";
import { conversation, messages, queryFor, rng, sentences } from "./search_corpus.ts";
import { tempKvPath } from "../tests/support/harness.ts";

const env = (name: string, fallback: number) => Number(Deno.env.get(name) ?? fallback);
const caller = { name: "bench", via: "token" as const };
const root = new URL("..", import.meta.url).pathname;

type Tool = (name: string, args: Record<string, unknown>) => Promise<Record<string, unknown>>;
async function connect(url: string): Promise<[Tool, Client]> {
  const c = new Client({ name: "bench-search", version: "1" });
  await c.connect(new StreamableHTTPClientTransport(new URL(url)));
  return [async (name, args) => {
    const r = await c.callTool({ name, arguments: args });
    const text = (r.content as { text: string }[])[0].text;
    if (r.isError) throw new Error(`${name}: ${text}`);
    return (r.structuredContent ?? JSON.parse(text)) as Record<string, unknown>;
  }, c];
}

async function timed<T>(work: () => Promise<T>): Promise<[number, T]> {
  const start = performance.now();
  const value = await work();
  return [performance.now() - start, value];
}

/** Seeds `kv` as the previous release would (no index); returns the corpus for FTS5. */
async function seed(kv: Deno.Kv, all: string[]) {
  setSearchIndexing(false);
  const ctx = tableCtx(kv, loadTableSettings(new Map()));
  const bodies = messages(all, env("BENCH_SEARCH_MESSAGES", 20_000));
  const corpus: { id: string; title: string; body: string }[] = [];
  let textBytes = 0;
  const enc = new TextEncoder();
  for (let i = 0; i < bodies.length; i += 100) {
    const title = all[i % all.length].slice(0, 60);
    const d = await createDiscussion(ctx, caller, { title });
    for (const body of bodies.slice(i, i + 100)) {
      const p = await postMessage(ctx, caller, { discussion_id: d.discussion.id, body });
      corpus.push({ id: `message:${d.discussion.id}/${p.message.seq}`, title, body });
      textBytes += enc.encode(body).length + enc.encode(title).length;
    }
  }
  for (let h = 0; h < env("BENCH_SEARCH_HANDOFFS", 200); h++) {
    const text = conversation(all, 10_000, 1000 + h);
    const title = all[(h * 7) % all.length].slice(0, 60);
    await saveHandoff(kv, DEFAULT_HANDOFF_LIMITS, {
      key: `h${h}`,
      title,
      summary: "bench",
      conversation: text,
    });
    corpus.push({ id: `handoff:h${h}`, title, body: text });
    textBytes += enc.encode(text).length + enc.encode(title).length;
  }
  setSearchIndexing(true);
  return { corpus, textBytes, bodies };
}

/** Indexes the seeded database as a first start does; counts mutations and bytes. */
async function firstStart(kv: Deno.Kv) {
  const sources = new Map(SEARCH_SOURCES.map((s) => [s.kind, s]));
  const [ms, counts] = await timed(async () => {
    const queued = await scanExisting(kv, SEARCH_SOURCES);
    let passages = 0;
    let mutations = queued; // one pending entry per item
    for (;;) {
      const r = await foldOnce(kv, sources, 400);
      if (r === null) break;
      passages += r.passages;
      mutations += r.mutations;
    }
    // Merges count too: the server runs them in the background once nothing is pending.
    let merges = 0;
    for (;;) {
      const m = await mergeOnce(kv, (kind) => sources.get(kind)?.mutable === true);
      if (m === null) break;
      merges++;
      mutations += m.mutations;
    }
    const segments = (await Array.fromAsync(kv.list({ prefix: ["search", "seg"] }))).length;
    return { queued, passages, mutations, merges, segments };
  });
  let bytes = 0;
  for await (const e of kv.list({ prefix: ["search"] })) {
    bytes += JSON.stringify(e.key).length +
      (e.value instanceof Uint8Array ? e.value.length : JSON.stringify(e.value).length);
  }
  return { ms, ...counts, bytes };
}

export const searchGroup: BenchGroup = {
  name: "search",
  what:
    "issue 28: search vs SQLite FTS5 (latency, MRR), write cost with the index on vs off, storage, first-start indexing, 1 MiB searchable delay",
  async run() {
    const all = await sentences(root);
    const file = await tempKvPath();
    const kv = await Deno.openKv(file.path);
    const { corpus, textBytes, bodies } = await seed(kv, all);
    const indexed = await firstStart(kv);
    kv.close();
    const corpusFile = `${file.path}.jsonl`;
    await Deno.writeTextFile(corpusFile, corpus.map((d) => JSON.stringify(d)).join("\n"));
    const ours = await startServerProcess({ KV_PATH: file.path });
    const fts = await startServerProcess({ CORPUS: corpusFile }, "bench/search_fts.ts");
    const offFile = await tempKvPath();
    const onFile = await tempKvPath();
    const on = await startServerProcess({ KV_PATH: onFile.path });
    const off = await startServerProcess({ KV_PATH: offFile.path, SEARCH_INDEX: "off" });
    try {
      const [ourTool, c1] = await connect(ours.mcpUrl);
      const [ftsTool, c2] = await connect(fts.mcpUrl);
      // Known-answer queries: the rarest words of random messages.
      const df = new Map<string, number>();
      for (const b of bodies) {
        for (const w of new Set(b.toLowerCase().match(/\b[a-z]{5,}\b/g) ?? [])) {
          df.set(w, (df.get(w) ?? 0) + 1);
        }
      }
      const r = rng(7);
      const asked = Array.from({ length: 100 }, () => {
        const i = Math.floor(r() * bodies.length);
        return { q: queryFor(bodies[i], df, r), id: corpus[i].id };
      }).filter((k) => k.q.split(" ").length >= 2);
      const lat = { ours: [] as number[], fts: [] as number[] };
      const rr = { ours: [] as number[], fts: [] as number[] };
      for (let round = 0; round < 3; round++) {
        for (const k of asked) {
          for (const [name, tool] of [["ours", ourTool], ["fts", ftsTool]] as const) {
            const [ms, res] = await timed(() => tool("search", { query: k.q }));
            const ids = (res.results as { id: string }[]).map((x) => x.id);
            if (round > 0) lat[name].push(ms);
            if (round === 0) rr[name].push(ids.includes(k.id) ? 1 / (ids.indexOf(k.id) + 1) : 0);
          }
        }
      }
      await c1.close();
      await c2.close();
      const write = await writeCost(on.mcpUrl, off.mcpUrl, all);
      const p = (xs: number[], q: number) => round(percentile(xs, q));
      const mrr = (xs: number[]) => round(xs.reduce((a, b) => a + b, 0) / xs.length);
      const results = {
        corpus: { messages: bodies.length, handoffs: corpus.length - bodies.length, textBytes },
        first_start: {
          ...indexed,
          passages_per_s: Math.round(indexed.passages / (indexed.ms / 1000)),
          mutations_per_passage: round(indexed.mutations / indexed.passages),
          index_bytes_per_text_byte: round(indexed.bytes / textBytes),
        },
        latency_ms: {
          ours: { p50: p(lat.ours, 0.5), p99: p(lat.ours, 0.99) },
          fts5: { p50: p(lat.fts, 0.5), p99: p(lat.fts, 0.99) },
        },
        mrr: { ours: mrr(rr.ours), fts5: mrr(rr.fts), queries: asked.length },
        write,
      };
      return {
        goals: [
          goal(
            "p50 ÷ FTS5 p50",
            results.latency_ms.ours.p50 / results.latency_ms.fts5.p50,
            "max",
            3,
          ),
          goal(
            "p99 ÷ FTS5 p99",
            results.latency_ms.ours.p99 / results.latency_ms.fts5.p99,
            "max",
            5,
          ),
          goal("MRR − FTS5 MRR", round(results.mrr.ours - results.mrr.fts5), "min", 0),
          goal("post_message p50, index on ÷ off", write.post_ratio, "max", 1.3),
          goal("1 MiB handoff_save ack, on ÷ off", write.save_ratio, "max", 1.3),
          goal("KV mutations per passage", results.first_start.mutations_per_passage, "max", 3),
          goal(
            "index bytes ÷ text bytes",
            results.first_start.index_bytes_per_text_byte,
            "max",
            1.5,
          ),
          goal("1 MiB searchable after save, max ms", write.searchable_max_ms, "max", 5000),
        ],
        results,
      };
    } finally {
      for (const s of [ours, fts, on, off]) await s.close();
      for (const f of [file, offFile, onFile]) await f.cleanup();
    }
  },
};

/** post_message and a 1 MiB handoff_save on a server with the index on vs off, alternating. */
async function writeCost(onUrl: string, offUrl: string, all: string[]) {
  const [onTool, c1] = await connect(onUrl);
  const [offTool, c2] = await connect(offUrl);
  const ids: Record<string, string> = {};
  for (const [name, tool] of [["on", onTool], ["off", offTool]] as const) {
    const d = await tool("create_discussion", { title: "bench" });
    ids[name] = (d.discussion as { id: string }).id;
  }
  const bodies = messages(all, 400, 3);
  const post = { on: [] as number[], off: [] as number[] };
  for (let i = 0; i < bodies.length; i++) {
    for (const [name, tool] of [["on", onTool], ["off", offTool]] as const) {
      const [ms] = await timed(() =>
        tool("post_message", { discussion_id: ids[name], body: bodies[i] })
      );
      if (i >= 20) post[name].push(ms);
    }
  }
  const save = { on: [] as number[], off: [] as number[] };
  const searchable: number[] = [];
  for (let i = 0; i < 6; i++) {
    const marker = `zzmarker${i}q`;
    const text = conversation(all, 1_000_000, 50 + i) + `\n## User\n${marker}\n`;
    for (const [name, tool] of [["on", onTool], ["off", offTool]] as const) {
      const [ms] = await timed(() =>
        tool("handoff_save", { key: `big${i}`, summary: "big", conversation: text })
      );
      if (i > 0) save[name].push(ms);
      if (name !== "on") continue;
      const start = performance.now();
      for (;;) {
        const res = await onTool("search", { query: marker });
        if ((res.results as unknown[]).length > 0) break;
        if (performance.now() - start > 30_000) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      searchable.push(performance.now() - start + ms);
    }
  }
  await c1.close();
  await c2.close();
  return {
    post_p50_ms: { on: round(percentile(post.on, 0.5)), off: round(percentile(post.off, 0.5)) },
    post_ratio: round(percentile(post.on, 0.5) / percentile(post.off, 0.5)),
    save_p50_ms: { on: round(percentile(save.on, 0.5)), off: round(percentile(save.off, 0.5)) },
    save_ratio: round(percentile(save.on, 0.5) / percentile(save.off, 0.5)),
    searchable_max_ms: round(Math.max(...searchable)),
    searchable_ms: searchable.map(round),
  };
}
