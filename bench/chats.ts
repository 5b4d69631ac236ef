/**
 * The chat importer on a generated ChatGPT export (10,000 conversations of about 50 KB, ≈ 500 MB;
 * `CHATS_BENCH_COUNT` scales it): `deno task import-chats` as its own process into a KV file,
 * its rate and peak RSS against the server's idle RSS, then the same export again: its time
 * against the first, and the KV entries it changed (none).
 */

import { join } from "node:path";
import { gptConversation, writeJsonArray } from "../tests/support/chat_exports.ts";
import { ROOT } from "../tests/support/harness.ts";
import { type BenchGroup, type Goal, goal } from "./lib.ts";
import { startServerProcess } from "./process.ts";

const CLI = join(ROOT, "src/backup/chats/cli.ts");

/** Runs the import as its own process; its seconds and the peak RSS it reports. */
async function runImport(
  kvPath: string,
  file: string,
): Promise<{ seconds: number; peakMiB: number; summary: string }> {
  const started = performance.now();
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--lock=deno.test.lock", CLI, file],
    cwd: ROOT,
    env: { KV_PATH: kvPath },
    stdout: "null",
    stderr: "piped",
  }).output();
  const seconds = (performance.now() - started) / 1000;
  const text = new TextDecoder().decode(out.stderr);
  if (!out.success) throw new Error(`import-chats failed:\n${text}`);
  const peak = text.match(/peak RSS ([\d.]+) MiB/);
  const summary = text.split("\n").find((l) => l.startsWith("imported ")) ?? "";
  return { seconds, peakMiB: Number(peak?.[1] ?? NaN), summary };
}

/** Every KV entry's versionstamp, to count what a run changed. */
async function stamps(kvPath: string): Promise<Map<string, string>> {
  const kv = await Deno.openKv(kvPath);
  const out = new Map<string, string>();
  try {
    for await (const e of kv.list({ prefix: [] })) out.set(JSON.stringify(e.key), e.versionstamp);
  } finally {
    kv.close();
  }
  return out;
}

function changed(before: Map<string, string>, after: Map<string, string>): number {
  let n = 0;
  for (const [key, stamp] of after) if (before.get(key) !== stamp) n++;
  for (const key of before.keys()) if (!after.has(key)) n++;
  return n;
}

async function idleServerRss(): Promise<number> {
  const dir = await Deno.makeTempDir({ prefix: "chats-idle-" });
  const server = await startServerProcess({ KV_PATH: join(dir, "idle.kv") });
  try {
    await new Promise((r) => setTimeout(r, 1000));
    return await server.rssMiB();
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/** Runs the chats suite. */
export async function benchChats(): Promise<Record<string, unknown>> {
  const count = Number(Deno.env.get("CHATS_BENCH_COUNT") ?? 10_000);
  const dir = await Deno.makeTempDir({ prefix: "chats-bench-" });
  try {
    const file = join(dir, "conversations.json");
    let largest = 0;
    await writeJsonArray(file, count, (i) => {
      const c = gptConversation(`bench${i}`, {
        turns: 10,
        branch: i % 3 === 0,
        pad: 4800 + (i % 7) * 100,
      });
      largest = Math.max(largest, JSON.stringify(c).length);
      return c;
    });
    const exportMiB = (await Deno.stat(file)).size / 2 ** 20;
    const idle = await idleServerRss();
    const kvPath = join(dir, "bench.kv");
    const first = await runImport(kvPath, file);
    const before = await stamps(kvPath);
    const second = await runImport(kvPath, file);
    const writes = changed(before, await stamps(kvPath));
    const largestMiB = largest / 2 ** 20;
    const rssBound = 2 * idle + largestMiB;
    return {
      goals: [
        goal(
          "import: peak RSS over (2 × idle server RSS + largest conversation)",
          first.peakMiB / rssBound,
          "max",
          1,
        ),
        goal("re-import: time over the first import's", second.seconds / first.seconds, "max", 0.2),
        goal("re-import: KV entries written", writes, "max", 0),
      ],
      conversations: count,
      export_mib: Math.round(exportMiB),
      largest_conversation_kib: Math.round(largest / 1024),
      idle_server_rss_mib: idle,
      first: {
        seconds: round1(first.seconds),
        per_second: Math.round(count / first.seconds),
        peak_rss_mib: first.peakMiB,
        summary: first.summary,
      },
      again: {
        seconds: round1(second.seconds),
        per_second: Math.round(count / second.seconds),
        peak_rss_mib: second.peakMiB,
        summary: second.summary,
        writes,
      },
    };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

function round1(n: number): number {
  return Math.round(n * 10) / 10;
}

/** The group `deno task bench chats` runs. */
export const chatsGroup: BenchGroup = {
  name: "chats",
  what: "import-chats on a generated 10,000-conversation ChatGPT export (≈ 500 MB), then again",
  run: async () => {
    const report = await benchChats();
    return { ...report, goals: report.goals as Goal[] };
  },
};
