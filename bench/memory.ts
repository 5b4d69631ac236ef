/**
 * The `memory` group (issue 27): the memory toolset over stdio on `:memory:` KV against the
 * official knowledge-graph server (on Deno, its graph in a JSONL file) in the same run, at 1,000
 * and 20,000 entities: one call sequence (create, observe, relate, open, search) with calls
 * alternating between the two, p50 per call. Then lost writes: several processes writing one
 * graph at once, ours (HTTP servers on one KV file) and the official server (stdio processes on
 * one file), acknowledged creates counted against what each graph holds afterwards.
 */

import type { Client } from "../src/client/sdk_client.ts";
import { Client as SdkClient, StreamableHTTPClientTransport } from "../src/client/sdk_client.ts";
import { connectStdio, spawnServer, tempKvPath } from "../tests/support/harness.ts";
import {
  connectOfficialMemory,
  OFFICIAL_MEMORY_PACKAGE,
} from "../tests/support/official_memory.ts";
import { type BenchGroup, goal, type GroupReport, percentile, round } from "./lib.ts";

type McpClient = InstanceType<typeof Client>;

const SIZES = [1_000, 20_000];
const ROUNDS = 40;
const WRITE_SECONDS = Number(Deno.env.get("BENCH_MEMORY_SECONDS") ?? "30");
const PROCESSES = 3;
const CLIENTS = 8;

function entity(i: number) {
  return {
    name: `entity-${i}`,
    entityType: i % 3 === 0 ? "person" : "project",
    observations: [`works on part ${i % 97}`, `noted in round ${i % 13}`],
  };
}

/** The official server's file for `n` entities and n relations, written as it writes it. */
async function officialFile(path: string, n: number): Promise<void> {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) lines.push(JSON.stringify({ type: "entity", ...entity(i) }));
  for (let i = 1; i < n; i++) {
    lines.push(JSON.stringify({
      type: "relation",
      from: `entity-${i}`,
      to: `entity-${i - 1}`,
      relationType: "follows",
    }));
  }
  await Deno.writeTextFile(path, lines.join("\n"));
}

async function seedOurs(client: McpClient, n: number): Promise<void> {
  for (let i = 0; i < n; i += 100) {
    const entities = Array.from({ length: Math.min(100, n - i) }, (_, j) => entity(i + j));
    await client.callTool({ name: "create_entities", arguments: { entities } });
    const relations = entities.filter((e) => e.name !== "entity-0").map((e) => ({
      from: e.name,
      to: `entity-${Number(e.name.slice(7)) - 1}`,
      relationType: "follows",
    }));
    await client.callTool({ name: "create_relations", arguments: { relations } });
  }
}

/** Round `r`'s calls: the same for both servers. */
function sequence(r: number, n: number): { name: string; arguments: Record<string, unknown> }[] {
  const some = (k: number) => `entity-${(r * 7919 + k * 104_729) % n}`;
  return [
    { name: "create_entities", arguments: { entities: [entity(n + r)] } },
    {
      name: "add_observations",
      arguments: { observations: [{ entityName: some(1), contents: [`seen in round ${r}`] }] },
    },
    {
      name: "create_relations",
      arguments: { relations: [{ from: some(2), to: some(3), relationType: "knows" }] },
    },
    { name: "open_nodes", arguments: { names: [some(4), some(5)] } },
    { name: "search_nodes", arguments: { query: `part ${r % 97}` } },
  ];
}

async function timed(client: McpClient, c: { name: string; arguments: Record<string, unknown> }) {
  const start = performance.now();
  const result = await client.callTool(c);
  const ms = performance.now() - start;
  if (result.isError) throw new Error(`${c.name} failed: ${JSON.stringify(result.content)}`);
  return ms;
}

async function callSequence(n: number) {
  const kv = await tempKvPath();
  const ours = await connectStdio(":memory:", { TOOLSETS: "memory" });
  // The same server without its graph copies (MEMORY_CACHE_BYTES=0): what the copies buy.
  const uncached = await connectStdio(":memory:", { TOOLSETS: "memory", MEMORY_CACHE_BYTES: "0" });
  const file = `${kv.path}.jsonl`;
  await officialFile(file, n);
  const theirs = await connectOfficialMemory(file);
  try {
    await seedOurs(ours, n);
    await seedOurs(uncached, n);
    const samples: Record<string, number[]> = { ours: [], official: [], search_uncached: [] };
    const byTool: Record<string, { ours: number[]; official: number[] }> = {};
    for (let r = 0; r < ROUNDS; r++) {
      for (const c of sequence(r, n)) {
        const a = await timed(ours, c);
        const b = await timed(theirs, c);
        const u = await timed(uncached, c);
        if (r < 3) continue; // warm-up
        if (c.name === "search_nodes") samples.search_uncached.push(u);
        samples.ours.push(a);
        samples.official.push(b);
        (byTool[c.name] ??= { ours: [], official: [] }).ours.push(a);
        byTool[c.name].official.push(b);
      }
    }
    const p50 = (xs: number[]) => round(percentile(xs, 0.5));
    return {
      p50_ms: { ours: p50(samples.ours), official: p50(samples.official) },
      ratio: percentile(samples.ours, 0.5) / percentile(samples.official, 0.5),
      search_p50_ms_without_copies: p50(samples.search_uncached),
      copies_speedup: percentile(samples.search_uncached, 0.5) /
        percentile(byTool.search_nodes.ours, 0.5),
      p50_ms_by_tool: Object.fromEntries(
        Object.entries(byTool).map((
          [k, v],
        ) => [k, { ours: p50(v.ours), official: p50(v.official) }]),
      ),
    };
  } finally {
    await ours.close();
    await uncached.close();
    await theirs.close();
    await kv.cleanup();
  }
}

/** Creates unique entities as fast as it can until `until`; returns the names acknowledged. */
async function writer(client: McpClient, tag: string, until: number): Promise<string[]> {
  const done: string[] = [];
  for (let i = 0; Date.now() < until; i++) {
    const name = `${tag}-${i}`;
    const r = await client.callTool({
      name: "create_entities",
      arguments: { entities: [{ name, entityType: "note", observations: [] }] },
    });
    if (!r.isError) done.push(name);
  }
  return done;
}

async function lostWrites() {
  const kv = await tempKvPath();
  const servers = [];
  const clients: McpClient[] = [];
  try {
    for (let p = 0; p < PROCESSES; p++) {
      servers.push(
        await spawnServer({ KV_PATH: kv.path, AUTH_TOKEN: "bench-memory-token-0123456789" }),
      );
    }
    for (const s of servers) {
      for (let c = 0; c < CLIENTS; c++) {
        const client = new SdkClient({ name: "w", version: "1" });
        await client.connect(
          new StreamableHTTPClientTransport(
            new URL(`${s.origin}/bench-memory-token-0123456789/mcp?toolsets=memory`),
          ),
        );
        clients.push(client);
      }
    }
    const until = Date.now() + WRITE_SECONDS * 1000;
    const acked = (await Promise.all(clients.map((c, i) => writer(c, `w${i}`, until)))).flat();
    const present = new Set<string>();
    let cursor: string | undefined;
    do {
      const page = await clients[0].callTool({
        name: "read_graph",
        arguments: cursor ? { cursor } : {},
      });
      const data = page.structuredContent as { entities: { name: string }[]; next_cursor?: string };
      for (const e of data.entities) present.add(e.name);
      cursor = data.next_cursor;
    } while (cursor);
    const ours = { acknowledged: acked.length, lost: acked.filter((n) => !present.has(n)).length };

    const file = `${kv.path}.official.jsonl`;
    const official: McpClient[] = [];
    for (let i = 0; i < PROCESSES * CLIENTS; i++) official.push(await connectOfficialMemory(file));
    const until2 = Date.now() + WRITE_SECONDS * 1000;
    const acked2 = (await Promise.all(official.map((c, i) => writer(c, `o${i}`, until2)))).flat();
    for (const c of official) await c.close();
    const text = await Deno.readTextFile(file).catch(() => "");
    const stored = new Set(
      text.split("\n").filter((l) => l.trim()).flatMap((l) => {
        try {
          return [JSON.parse(l).name as string];
        } catch {
          return []; // a line torn by a concurrent rewrite
        }
      }),
    );
    const theirs = {
      acknowledged: acked2.length,
      lost: acked2.filter((n) => !stored.has(n)).length,
    };
    return {
      seconds: WRITE_SECONDS,
      processes: PROCESSES,
      clients_per_process: CLIENTS,
      ours,
      official: theirs,
    };
  } finally {
    for (const c of clients) await c.close();
    for (const s of servers) await s.close();
    await kv.cleanup();
  }
}

async function run(): Promise<GroupReport> {
  const sizes: Record<string, Awaited<ReturnType<typeof callSequence>>> = {};
  for (const n of SIZES) sizes[n] = await callSequence(n);
  const lost = await lostWrites();
  return {
    what:
      "p50 per call of one call sequence (create, observe, relate, open, search), ours (stdio, :memory: KV) and the official server (stdio, JSONL file) alternating; lost writes with several processes on one graph",
    official: `${OFFICIAL_MEMORY_PACKAGE} on Deno`,
    sizes,
    lost_writes: lost,
    goals: [
      goal("p50 per call ÷ official, 1,000 entities", sizes[1000].ratio, "max", 1.0),
      goal("p50 per call ÷ official, 20,000 entities", sizes[20000].ratio, "max", 0.2),
      goal(
        "search_nodes p50 without graph copies ÷ with, 20,000 entities (MEMORY_CACHE_BYTES switch)",
        sizes[20000].copies_speedup,
        "min",
        1.5,
      ),
      goal(
        `writes lost, ${PROCESSES} processes × ${CLIENTS} clients, ${WRITE_SECONDS} s`,
        lost.ours.lost,
        "max",
        0,
      ),
    ],
  };
}

/** The `memory` benchmark group. */
export const memoryGroup: BenchGroup = {
  name: "memory",
  what: "the memory toolset against the official knowledge-graph server: call p50, lost writes",
  run,
};
