/**
 * Table toolset. The server (`main.ts`, TOOLSETS=table) runs as its own process on a KV file;
 * 16 SDK clients in this process talk to it over Streamable HTTP on loopback.
 *
 * - post_message with 16 clients on ONE discussion vs 16 clients on 16 discussions: throughput,
 *   p50/p99 latency, server CPU per post (from /proc), and the one discussion's seqs checked to
 *   be exactly 1..N afterwards.
 * - get_workspace_context p50 on an empty workspace vs one holding 1,000 discussions, 20,000
 *   messages, 2,000 done tasks and 500 accepted handoffs, measured interleaved; on the loaded
 *   one also as a reader with 100 read positions (50 listed, 50 not: its unread costs lookups).
 * - the notice delay from a post's acknowledgement to a listener's notice (bench/table_notices.ts).
 */

import { Client, StreamableHTTPClientTransport } from "../src/client/sdk_client.ts";
import { loadTableSettings } from "../src/table/settings.ts";
import { type TableCtx, tableCtx } from "../src/table/store_common.ts";
import {
  createDiscussion,
  postMessage,
  recentDiscussions,
} from "../src/table/store_discussions.ts";
import { getDiscussion } from "../src/table/store_discussion_page.ts";
import { acceptHandoff, createHandoff } from "../src/table/store_handoffs.ts";
import { createTask, updateTask } from "../src/table/store_tasks.ts";
import { tempKvPath } from "../tests/support/harness.ts";
import { processCpuMs, startServerProcess, waitQuiet } from "./process.ts";
import { type BenchGroup, goal, measureInterleaved, ratio, round } from "./lib.ts";
import { noticeDelays } from "./table_notices.ts";

const CLIENTS = 16;
const POSTS_PER_CLIENT = 40;
const LOADED = "bench/loaded";
const EMPTY = "bench/empty";
const SEEDER = { name: "seeder", via: "local" as const };
const READER = "reader";

type McpClient = InstanceType<typeof Client>;

/** Fills `LOADED` with 1,000 discussions of 20 messages, 2,000 done tasks, 500 accepted handoffs. */
async function seed(ctx: TableCtx): Promise<void> {
  const workspace = LOADED;
  for (let batch = 0; batch < 1000; batch += 50) {
    await Promise.all(Array.from({ length: 50 }, async (_, i) => {
      const { discussion } = await createDiscussion(ctx, SEEDER, {
        title: `Discussion ${batch + i}`,
        body: "Opening message",
        workspace,
      });
      for (let m = 2; m <= 20; m++) {
        await postMessage(ctx, SEEDER, { discussion_id: discussion.id, body: `Message ${m}` });
      }
    }));
  }
  for (let batch = 0; batch < 2000; batch += 100) {
    await Promise.all(Array.from({ length: 100 }, async (_, i) => {
      const { task } = await createTask(ctx, SEEDER, { title: `Done ${batch + i}`, workspace });
      await updateTask(ctx, SEEDER, { task_id: task.id, status: "done" });
    }));
  }
  for (let batch = 0; batch < 500; batch += 50) {
    await Promise.all(Array.from({ length: 50 }, async (_, i) => {
      const worker = { name: `worker-${(batch + i) % 25}`, via: "token" as const };
      const { task } = await createTask(ctx, SEEDER, { title: `Handed ${batch + i}`, workspace });
      const { handoff } = await createHandoff(ctx, SEEDER, {
        task_id: task.id,
        to: worker.name,
        context: "Everything you need",
      });
      await acceptHandoff(ctx, worker, { handoff_id: handoff.id });
    }));
  }
}

/**
 * Gives `READER` 100 read positions in `LOADED`: the 50 most recently active discussions read
 * to the end (listed by get_workspace_context's default limit), 50 quiet ones read halfway.
 */
async function seedReader(ctx: TableCtx): Promise<void> {
  const recent = await recentDiscussions(ctx, LOADED, 1000);
  const reader = { name: READER, via: "header" as const };
  for (const [i, d] of [...recent.slice(0, 50), ...recent.slice(500, 550)].entries()) {
    await getDiscussion(ctx, { discussion_id: d.id, limit: i < 50 ? 20 : 10 }, reader);
  }
}

function percentile(sorted: number[], q: number): number {
  return round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]);
}

/** All clients post at once, each `POSTS_PER_CLIENT` times to its discussion, one after another. */
function postRun(clients: McpClient[], discussionOf: (i: number) => string, pid: number) {
  return callRun(clients, pid, async (client, i, n) => {
    const r = await client.callTool({
      name: "post_message",
      arguments: { discussion_id: discussionOf(i), body: `client ${i} post ${n}` },
    });
    if (r.isError) throw new Error(`post_message failed: ${JSON.stringify(r.content)}`);
  });
}

/** All clients call at once, `POSTS_PER_CLIENT` calls each; throughput, latency, server CPU. */
async function callRun(
  clients: McpClient[],
  pid: number,
  once: (client: McpClient, i: number, n: number) => Promise<unknown>,
) {
  const latencies: number[] = [];
  const cpuBefore = await processCpuMs(pid) / 1000;
  const started = performance.now();
  await Promise.all(clients.map(async (client, i) => {
    for (let n = 0; n < POSTS_PER_CLIENT; n++) {
      const t0 = performance.now();
      await once(client, i, n);
      latencies.push(performance.now() - t0);
    }
  }));
  const seconds = (performance.now() - started) / 1000;
  const cpu = await processCpuMs(pid) / 1000 - cpuBefore;
  const posts = clients.length * POSTS_PER_CLIENT;
  latencies.sort((a, b) => a - b);
  return {
    calls: posts,
    per_second: Math.round(posts / seconds),
    p50_ms: percentile(latencies, 0.5),
    p99_ms: percentile(latencies, 0.99),
    server_cpu_ms_per_call: round((cpu * 1000) / posts),
  };
}

/** Reads a discussion back and checks its seqs are exactly 1..expected. */
async function contiguous(client: McpClient, id: string, expected: number): Promise<boolean> {
  const seqs: number[] = [];
  let after = 0;
  for (;;) {
    const r = await client.callTool({
      name: "get_discussion",
      arguments: { discussion_id: id, after_seq: after, limit: 200 },
    });
    const page = r.structuredContent as { messages: { seq: number }[]; has_more: boolean };
    seqs.push(...page.messages.map((m) => m.seq));
    if (!page.has_more) break;
    after = seqs.at(-1)!;
  }
  return seqs.length === expected && seqs.every((s, i) => s === i + 1);
}

/** Runs the table benchmark. */
export async function benchTable(): Promise<Record<string, unknown>> {
  const kvFile = await tempKvPath();
  const seedStarted = performance.now();
  const kv = await Deno.openKv(kvFile.path);
  const seedCtx = tableCtx(kv, loadTableSettings(new Map()));
  await seed(seedCtx);
  await seedReader(seedCtx);
  kv.close();
  const seedSeconds = round((performance.now() - seedStarted) / 1000);
  const server = await startServerProcess({ KV_PATH: kvFile.path, TOOLSETS: "table" });
  // The server first indexes the seed for search; posts are measured once that is done.
  const indexSeconds = await waitQuiet(server);
  const clients: McpClient[] = [];
  let reader: McpClient | undefined;
  const connect = async (name: string) => {
    const client = new Client({ name: `bench-${name}`, version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(server.mcpUrl), {
        requestInit: { headers: { "x-client-name": name } },
      }),
    );
    return client;
  };
  try {
    for (let i = 0; i < CLIENTS; i++) clients.push(await connect(`poster-${i}`));
    const readerClient = reader = await connect(READER);
    const open = async (title: string) => {
      const r = await clients[0].callTool({
        name: "create_discussion",
        arguments: { title, workspace: EMPTY },
      });
      return (r.structuredContent as { discussion: { id: string } }).discussion.id;
    };
    // Warm both paths once, on discussions of their own.
    const warm = await open("warm");
    await postRun(clients.slice(0, 4), () => warm, server.pid);
    const one = await open("one table");
    const many = await Promise.all(Array.from({ length: CLIENTS }, (_, i) => open(`table ${i}`)));
    const pingRun = await callRun(clients, server.pid, (client) => client.ping());
    const oneRun = await postRun(clients, () => one, server.pid);
    const manyRun = await postRun(clients, (i) => many[i], server.pid);
    const seqsContiguous = await contiguous(clients[1], one, CLIENTS * POSTS_PER_CLIENT);

    const context = (workspace: string, client = clients[2]) => () =>
      client.callTool({ name: "get_workspace_context", arguments: { workspace } });
    const loadedCheck = await context(LOADED)();
    const loaded = loadedCheck.structuredContent as { total_discussions: number };
    if (loadedCheck.isError || loaded.total_discussions !== 1000) {
      throw new Error(`the loaded workspace is not seeded: ${JSON.stringify(loadedCheck)}`);
    }
    const emptyWs = "bench/nothing";
    const readerCheck = (await context(LOADED, readerClient)()).structuredContent as {
      open_items: { unread: { discussions: number; messages: number } };
    };
    const readerUnread = readerCheck.open_items.unread;
    if (readerUnread.discussions !== 950 || readerUnread.messages !== 20000 - 1000 - 500) {
      throw new Error(`the reader's unread is wrong: ${JSON.stringify(readerUnread)}`);
    }
    const contextRuns = await measureInterleaved(
      {
        context_empty: context(emptyWs),
        context_loaded: context(LOADED),
        context_loaded_reader: context(LOADED, readerClient),
      },
      10,
      20,
    );
    const notices = await noticeDelays(kvFile.path, clients[3]);
    return {
      transport: "streamable-http (stateless), loopback; server is main.ts in its own process",
      kv: "file",
      seed_seconds: seedSeconds,
      first_start_index_seconds: indexSeconds,
      clients: CLIENTS,
      posts_per_client: POSTS_PER_CLIENT,
      post_message_one_discussion: oneRun,
      post_message_16_discussions: manyRun,
      baseline_ping: pingRun,
      one_vs_many_throughput: Math.round((oneRun.per_second / manyRun.per_second) * 100) / 100,
      seqs_contiguous: seqsContiguous,
      get_workspace_context: contextRuns,
      context_loaded_vs_empty: ratio(contextRuns.context_loaded, contextRuns.context_empty),
      context_reader_vs_loaded: ratio(
        contextRuns.context_loaded_reader,
        contextRuns.context_loaded,
      ),
      reader_unread: readerUnread,
      notice_delay: notices,
      goals: {
        one_vs_many_throughput: ">= 0.5",
        server_cpu_ms_per_call_of_post_message: "<= 0.8",
        context_loaded_vs_empty: "<= 2",
        context_reader_vs_loaded: "<= 1.2",
      },
    };
  } finally {
    for (const c of clients) await c.close();
    await reader?.close();
    await server.close();
    await kvFile.cleanup();
  }
}

/** The `table` benchmark group: `benchTable`'s figures with its goals as a table. */
export const tableGroup: BenchGroup = {
  name: "table",
  what:
    "post_message: 16 clients on one discussion vs 16; get_workspace_context empty vs loaded, and as a reader with unread; notice delay",
  run: async () => {
    const report = await benchTable();
    const one = report.post_message_one_discussion as { server_cpu_ms_per_call: number };
    return {
      ...report,
      goals: [
        goal(
          "post_message throughput, 1 / 16 discussions",
          report.one_vs_many_throughput as number,
          "min",
          0.5,
        ),
        goal(
          "post_message on 1 discussion: server CPU per call (ms)",
          one.server_cpu_ms_per_call,
          "max",
          0.8,
        ),
        goal(
          "get_workspace_context latency, loaded / empty",
          report.context_loaded_vs_empty as number,
          "max",
          2,
        ),
        goal(
          "get_workspace_context loaded: a reader of 100 discussions / a caller who read none",
          report.context_reader_vs_loaded as number,
          "max",
          1.2,
        ),
      ],
    };
  },
};
