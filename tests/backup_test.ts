/** `deno task export` and `deno task import`, run as a user runs them, on real server data. */

import assert from "node:assert/strict";
import { openKv } from "../src/kit/open_kv.ts";
import { call, connect, runTask, startServer, tempKvPath } from "./support/harness.ts";

function task(args: string[], kvPath: string) {
  return runTask(args, { KV_PATH: kvPath });
}

async function isEmpty(path: string): Promise<boolean> {
  const kv = await openKv(path);
  try {
    for await (const _ of kv.list({ prefix: [] })) return false;
    return true;
  } finally {
    kv.close();
  }
}

Deno.test("export, import into a fresh file, export again: byte-identical, over the CLI tasks", async () => {
  const dir = await tempKvPath();
  const source = `${dir.path}.source`;
  const target = `${dir.path}.target`;
  const first = `${dir.path}.1.jsonl`;
  const second = `${dir.path}.2.jsonl`;
  try {
    const kv = await openKv(source);
    const server = await startServer({ kv });
    const client = await connect(server, "http");
    const conversation = "## User\n" + "long line of talk ".repeat(50_000) + "\n## Assistant\nok";
    assert.ok(
      !(await call(client, "handoff_save", { key: "big", summary: "s", conversation }))
        .isError,
    );
    await call(client, "set_north_star", { project_id: "p", text: "Ship it" });
    await call(client, "add_task", { project_id: "p", body: "tidy", kind: "cleanup" });
    await call(client, "sequentialthinking", {
      thought: "first",
      thoughtNumber: 1,
      totalThoughts: 1,
      nextThoughtNeeded: false,
    });
    await client.close();
    await server.close();
    kv.close();

    const exported = await task(["export", first], source);
    assert.equal(exported.code, 0, exported.stderr);
    assert.match(exported.stderr, /exported \d+ entries from /);
    const toStdout = await task(["export"], source);
    assert.equal(toStdout.stdout, await Deno.readTextFile(first), "stdout export is the same");

    const imported = await task(["import", first], target);
    assert.equal(imported.code, 0, imported.stderr);
    assert.match(imported.stderr, /imported \d+ entries into /);
    assert.equal((await task(["export", second], target)).code, 0);
    assert.deepEqual(await Deno.readFile(second), await Deno.readFile(first));

    const again = await task(["import", first], target);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /^handoff-mcp import: the database is not empty/);
  } finally {
    for (const f of [source, target, first, second]) await Deno.remove(f).catch(() => {});
    await dir.cleanup();
  }
});

Deno.test("import refuses a cut file with one line naming the line, and leaves the target empty", async () => {
  const dir = await tempKvPath();
  const source = `${dir.path}.source`;
  const target = `${dir.path}.target`;
  const file = `${dir.path}.jsonl`;
  try {
    const kv = await openKv(source);
    for (let i = 0; i < 20; i++) await kv.set(["k", i], { i });
    kv.close();
    assert.equal((await task(["export", file], source)).code, 0);
    const text = await Deno.readTextFile(file);
    await Deno.writeTextFile(file, text.slice(0, text.indexOf('"k",12') + 10));
    const refused = await task(["import", file], target);
    assert.equal(refused.code, 1);
    assert.equal(refused.stderr.trimEnd().split("\n").length, 1, refused.stderr);
    assert.match(refused.stderr, /^handoff-mcp import: line 14: not valid JSON/);
    assert.ok(await isEmpty(target));
    const usage = await task(["import"], target);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /usage: deno task export \[file\]/);
  } finally {
    for (const f of [source, target, file]) await Deno.remove(f).catch(() => {});
    await dir.cleanup();
  }
});
