/**
 * `deno task import-chats` as a real process: killed with SIGKILL mid-import it resumes where it
 * stopped (every conversation whole, the counts true), and a large export is read in bounded
 * memory.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { loadHandoff } from "../src/handoff/store_read.ts";
import { DEFAULT_HANDOFF_LIMITS } from "../src/handoff/settings.ts";
import { type Handoff, handoffImportCountKey } from "../src/handoff/store_schema.ts";
import { gptConversation, writeJsonArray } from "./support/chat_exports.ts";
import { ROOT } from "./support/harness.ts";

const CLI = join(ROOT, "src/backup/chats/cli.ts");

function importer(kvPath: string, args: string[]): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--lock=deno.test.lock", CLI, ...args],
    cwd: ROOT,
    env: { KV_PATH: kvPath },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
}

/** Reads stderr lines of `child` until `stop` says so (or the stream ends). */
async function readUntil(child: Deno.ChildProcess, stop: (line: string) => boolean) {
  const lines: string[] = [];
  let buffer = "";
  for await (const text of child.stderr.pipeThrough(new TextDecoderStream())) {
    buffer += text;
    const parts = buffer.split("\n");
    buffer = parts.pop()!;
    for (const line of parts) {
      lines.push(line);
      if (stop(line)) return lines;
    }
  }
  return lines;
}

Deno.test("kill -9 mid-import: the next run resumes, every conversation whole", async () => {
  const dir = await Deno.makeTempDir({ prefix: "chats-kill-" });
  try {
    const file = join(dir, "conversations.json");
    const total = 1500;
    await writeJsonArray(file, total, (i) => gptConversation(`k${i}`, { turns: 3, pad: 2000 }));
    const kvPath = join(dir, "db.kv");
    const first = importer(kvPath, [file]);
    await readUntil(first, (l) => /^([1-9]\d*) conversations done/.test(l));
    first.kill("SIGKILL");
    assert.equal((await first.status).signal, "SIGKILL");
    const second = importer(kvPath, [file]);
    const lines = await readUntil(second, () => false);
    assert.equal((await second.status).code, 0, lines.join("\n"));
    const done = lines.find((l) => l.startsWith("imported "))!;
    const m = done.match(/^imported (\d+), updated (\d+), unchanged (\d+), skipped 0/)!;
    assert.ok(m, done);
    const [imported, updated, unchanged] = m.slice(1).map(Number);
    assert.ok(unchanged > 0, `the first run had written some: ${done}`);
    assert.ok(imported > 0, `the first run was killed before the end: ${done}`);
    assert.equal(imported + updated + unchanged, total);
    const kv = await Deno.openKv(kvPath);
    try {
      let records = 0;
      for await (const e of kv.list<Handoff>({ prefix: ["handoff"] })) {
        if (e.key.length === 2) records++;
      }
      assert.equal(records, total);
      assert.equal((await kv.get(handoffImportCountKey())).value, total);
      for (const i of [0, 700, total - 1]) {
        const h = await loadHandoff(kv, DEFAULT_HANDOFF_LIMITS, `chatgpt-k${i}`);
        assert.match(h.conversation, new RegExp(`assistant 3 of k${i}x+\\n$`));
      }
    } finally {
      kv.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a 200 MB export is read in bounded memory", async () => {
  const dir = await Deno.makeTempDir({ prefix: "chats-big-" });
  try {
    const file = join(dir, "conversations.json");
    // Most of each conversation is an abandoned branch: big to read, small to write.
    const abandoned = "y".repeat(100_000);
    await writeJsonArray(file, 2000, (i) => {
      const c = gptConversation(`b${i}`);
      const mapping = c.mapping as Record<string, Record<string, unknown>>;
      mapping[`b${i}-old`] = {
        id: `b${i}-old`,
        parent: `b${i}-u1`,
        children: [],
        message: {
          author: { role: "assistant" },
          content: { content_type: "text", parts: [abandoned] },
        },
      };
      (mapping[`b${i}-u1`].children as string[]).push(`b${i}-old`);
      return c;
    });
    const size = (await Deno.stat(file)).size;
    assert.ok(size > 200_000_000, `${size}`);
    const child = importer(join(dir, "db.kv"), [file]);
    const lines = await readUntil(child, () => false);
    assert.equal((await child.status).code, 0, lines.join("\n"));
    assert.match(
      lines.join("\n"),
      /imported 2000, updated 0, unchanged 0, skipped 0; branches left out 2000/,
    );
    const peak = Number(lines.find((l) => l.startsWith("peak RSS"))!.match(/([\d.]+) MiB/)![1]);
    // Loading the file whole would take more than the file's size; streaming holds one item.
    assert.ok(peak < 200, `peak RSS ${peak} MiB for a ${(size / 2 ** 20).toFixed(0)} MiB export`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
