import assert from "node:assert/strict";
import { CODEX, withTable } from "../../tests/support/table_mcp.ts";
import { createDiscussion } from "../table/store_discussions.ts";
import { checkedFamilies } from "./shapes.ts";
import { exportKv, importKv, type LineSource } from "./transfer.ts";

async function exported(kv: Deno.Kv): Promise<string[]> {
  const lines: string[] = [];
  await exportKv(kv, (line) => {
    lines.push(line);
    return Promise.resolve();
  });
  return lines;
}

function source(lines: string[]): LineSource {
  return async function* () {
    yield* lines;
  };
}

async function refused(lines: string[], reason: RegExp): Promise<void> {
  const target = await Deno.openKv(":memory:");
  try {
    await assert.rejects(
      () => importKv(target, source(lines), { merge: false, source: "edited.jsonl" }),
      reason,
    );
    assert.equal((await Array.fromAsync(target.list({ prefix: [] }))).length, 0, "nothing written");
  } finally {
    target.close();
  }
}

Deno.test("import refuses a record of the wrong shape with its line number, writing nothing", async () => {
  await withTable({}, async ({ ctx, kv }) => {
    const { discussion } = await createDiscussion(ctx, CODEX, { title: "T", body: "hello" });
    const lines = await exported(kv);
    const at = lines.findIndex((l) => l.startsWith('{"key":["message"'));
    const edit = (change: (entry: { key: unknown[]; value: Record<string, unknown> }) => void) => {
      const entry = JSON.parse(lines[at]);
      change(entry);
      return lines.with(at, JSON.stringify(entry));
    };
    await refused(
      edit((e) => e.value.body = "now a string"),
      new RegExp(
        `^LineError: line ${at + 1}: \\["message","${discussion.id}",1\\] is not a valid ` +
          "record: body: expected bytes, found string",
      ),
    );
    await refused(
      edit((e) => e.value.kind = "decree"),
      /is not a valid record: kind: expected one of proposal, review, question, note, found string "decree"/,
    );
    await refused(
      edit((e) => e.key[2] = "1"),
      /is not a valid record: a message key is \["message", string, number\]/,
    );
    await refused(
      edit((e) => delete e.value.author),
      /is not a valid record: author: expected a record, found nothing/,
    );
  });
});

Deno.test("the README's backup section names every record family import checks", async () => {
  const readme = await Deno.readTextFile(new URL("../../README.md", import.meta.url));
  const section = readme.slice(readme.indexOf("## Backup and moving data"));
  const checks = section.slice(0, section.indexOf("\n## ", 5));
  for (const family of checkedFamilies()) {
    assert.ok(checks.includes(`\`${family}\``), `README does not name ${family}`);
  }
});

Deno.test("import checks focus and thinking records too", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const at = "2026-12-07T00:00:00.000Z";
    await kv.set(["task", "p1", "01J0000000000000000000000A"], {
      id: "01J0000000000000000000000A",
      projectId: "p1",
      body: "tidy",
      kind: "cleanup",
      demoted: true,
      status: "open",
      createdAt: at,
    });
    await kv.set(["thought_number", "seq_x", "main", 1], 1);
    const lines = await exported(kv);
    const edit = (family: string, change: (e: { key: unknown[]; value: unknown }) => void) => {
      const i = lines.findIndex((l) => l.startsWith(`{"key":["${family}"`));
      const entry = JSON.parse(lines[i]);
      change(entry);
      return lines.with(i, JSON.stringify(entry));
    };
    await refused(
      edit("task", (e) => (e.value as Record<string, unknown>).kind = "decree"),
      /\["task","p1","01J0000000000000000000000A"\] is not a valid record: kind: expected one of main, cleanup, record/,
    );
    await refused(
      edit("task", (e) => (e.value as Record<string, unknown>).demoted = "yes"),
      /is not a valid record: demoted: expected true or false, found string "yes"/,
    );
    await refused(
      edit("thought_number", (e) => e.value = "1"),
      /\["thought_number","seq_x","main",1\] is not a valid record: expected a whole number/,
    );
    for (const family of ["project", "focus", "task", "sequence", "thought", "branch"]) {
      assert.ok(checkedFamilies().includes(family), family);
    }
  } finally {
    kv.close();
  }
});
