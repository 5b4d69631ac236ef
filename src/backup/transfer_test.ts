import assert from "node:assert/strict";
import { everyType } from "../../tests/support/kv_values.ts";
import {
  exportKv,
  IMPORT_MARKER_KEY,
  importKv,
  type ImportMarker,
  type LineSource,
} from "./transfer.ts";

async function exportText(kv: Deno.Kv, progress?: (m: string) => void): Promise<string> {
  let text = "";
  await exportKv(kv, (line) => {
    text += line + "\n";
    return Promise.resolve();
  }, progress);
  return text;
}

function linesOf(text: string): LineSource {
  return async function* () {
    const lines = text.split("\n");
    if (lines.at(-1) === "") lines.pop();
    yield* lines;
  };
}

async function withKvs(fn: (source: Deno.Kv, target: Deno.Kv) => Promise<void>): Promise<void> {
  const source = await Deno.openKv(":memory:");
  const target = await Deno.openKv(":memory:");
  try {
    await fn(source, target);
  } finally {
    source.close();
    target.close();
  }
}

async function keysOf(kv: Deno.Kv): Promise<Deno.KvKey[]> {
  const keys: Deno.KvKey[] = [];
  for await (const entry of kv.list({ prefix: [] })) keys.push(entry.key);
  return keys;
}

async function seed(kv: Deno.Kv): Promise<void> {
  await kv.set(["types", new Uint8Array([1]), 2n, true], everyType());
  await kv.set(["counter"], new Deno.KvU64(5n));
  for (let i = 0; i < 2500; i++) await kv.set(["many", i], { i, text: "x".repeat(i % 300) });
}

Deno.test("exportKv() then importKv() into an empty database then exportKv() gives the same text", async () => {
  await withKvs(async (source, target) => {
    await seed(source);
    const progress: string[] = [];
    const first = await exportText(source, (m) => progress.push(m));
    assert.deepEqual(progress, ["exported 1000 entries…", "exported 2000 entries…"]);
    const written = await importKv(target, linesOf(first), { merge: false, source: "a.jsonl" });
    assert.equal(written, 2502);
    assert.equal(await exportText(target), first);
    const marker = (await target.get<ImportMarker>(IMPORT_MARKER_KEY)).value!;
    assert.equal(marker.state, "done");
    assert.equal(marker.entries, 2502);
    const counter = (await target.get(["counter"])).value;
    assert.ok(counter instanceof Deno.KvU64);
  });
});

Deno.test("importKv() refuses a cut or edited file with the line number and writes nothing", async () => {
  await withKvs(async (source, target) => {
    await seed(source);
    const text = await exportText(source);
    const lines = text.trimEnd().split("\n");
    const cases: [string, RegExp][] = [
      [text.slice(0, text.length - 40), /^line 2503: not valid JSON/],
      [lines.slice(0, -1).join("\n") + "\n", /^line 2504: the file ends before its end line/],
      [
        [...lines.slice(0, 99), lines[99].replace('"value":{', '"value":{{'), ...lines.slice(100)]
          .join("\n"),
        /^line 100: not valid JSON/,
      ],
      [[...lines.slice(0, 10), lines[9], ...lines.slice(10)].join("\n"), /^line 11: this key/],
      [[...lines, lines[5]].join("\n"), /^line 2505: nothing may follow the end line/],
      [
        [...lines.slice(0, 10), ...lines.slice(11)].join("\n"),
        /^line 2503: the end line counts 2502 entries, the file has 2501/,
      ],
      ["", /^line 1: the file is empty/],
      ['{"key":["a"],"value":1}', /^line 1: not a handoff-mcp export/],
    ];
    for (const [file, error] of cases) {
      await assert.rejects(
        () => importKv(target, linesOf(file), { merge: false, source: "cut.jsonl" }),
        (e: Error) => error.test(e.message),
        `expected ${error}`,
      );
      assert.deepEqual(await keysOf(target), [], "nothing was written, not even the marker");
    }
  });
});

Deno.test("importKv() refuses a non-empty database unless --merge, which overwrites and keeps the rest", async () => {
  await withKvs(async (source, target) => {
    await source.set(["a"], 1);
    await source.set(["b"], 2);
    const text = await exportText(source);
    await target.set(["b"], "old");
    await target.set(["c"], "kept");
    await assert.rejects(
      () => importKv(target, linesOf(text), { merge: false, source: "x" }),
      /the database is not empty: .*--merge/,
    );
    assert.equal((await target.get(["a"])).value, null);
    await importKv(target, linesOf(text), { merge: true, source: "x" });
    assert.deepEqual(
      (await target.getMany([["a"], ["b"], ["c"]])).map((e) => e.value),
      [1, 2, "kept"],
    );
  });
});

Deno.test("an interrupted import is detected by the next one: another file is written over it only with --merge", async () => {
  await withKvs(async (source, target) => {
    for (let i = 0; i < 250; i++) await source.set(["n", i], i);
    // A value over KV's 64 KiB limit fails in the third batch, after two were written.
    await source.set(["n", 300], "x".repeat(60_000));
    const text = (await exportText(source)).replace('"x', '"' + "y".repeat(10_000) + "x");
    await assert.rejects(
      () => importKv(target, linesOf(text), { merge: false, source: "big.jsonl" }),
      /: lines 202–252 could not be written: Value too large/,
    );
    const marker = (await target.get<ImportMarker>(IMPORT_MARKER_KEY)).value!;
    assert.equal(marker.state, "running");
    assert.equal((await keysOf(target)).length, 201, "two batches and the marker");
    const fixed = await exportText(source);
    await assert.rejects(
      () => importKv(target, linesOf(fixed), { merge: false, source: "fixed.jsonl" }),
      /an earlier import \(of big\.jsonl, 251 entries, started .*\) was interrupted.*--abandon/,
    );
    await importKv(target, linesOf(fixed), { merge: true, source: "fixed.jsonl" });
    assert.equal(await exportText(target), fixed);
    assert.equal((await target.get<ImportMarker>(IMPORT_MARKER_KEY)).value!.state, "done");
  });
});
