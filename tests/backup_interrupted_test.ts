/**
 * An import killed half-way: a server (HTTP or stdio) started on that database says so and
 * refuses to serve until the import is run again or abandoned, as the README says.
 */

import assert from "node:assert/strict";
import { encodeEntry, endLine, headerLine } from "../src/backup/codec.ts";
import { IMPORT_MARKER_KEY, type ImportMarker } from "../src/backup/marker.ts";
import { openKv } from "../src/kit/open_kv.ts";
import { ROOT, spawnServer, tempKvPath } from "./support/harness.ts";

const ENTRIES = 30_000;
const PERMISSIONS = ["--allow-net", "--allow-env", "--allow-read", "--allow-write"];

async function writeExport(file: string): Promise<void> {
  const lines = [headerLine()];
  for (let i = 0; i < ENTRIES; i++) lines.push(encodeEntry(["n", i], "x".repeat(200)));
  lines.push(endLine(ENTRIES));
  await Deno.writeTextFile(file, lines.join("\n") + "\n");
}

/** Starts `deno task import <file>`'s program and kills it (SIGKILL) once it wrote 2,000. */
async function killedImport(file: string, kvPath: string): Promise<void> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...PERMISSIONS, "src/backup/cli.ts", "import", file],
    cwd: ROOT,
    env: { KV_PATH: kvPath, NO_COLOR: "1" },
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let seen = "";
  for await (const text of child.stderr.pipeThrough(new TextDecoderStream())) {
    seen += text;
    if (/imported 2000 of/.test(seen)) break;
  }
  child.kill("SIGKILL");
  const status = await child.status;
  assert.equal(status.signal, "SIGKILL", `the import ended by itself first: ${seen}`);
}

async function run(args: string[], kvPath: string) {
  const out = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: ROOT,
    env: { KV_PATH: kvPath, NO_COLOR: "1", PORT: "0" },
    stdin: "null",
    stdout: "piped",
    // A server that does serve never exits by itself: stopped, it fails the check on its code.
    signal: AbortSignal.timeout(20_000),
    stderr: "piped",
  }).output();
  return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
}

async function marker(kvPath: string): Promise<ImportMarker | null> {
  const kv = await openKv(kvPath);
  try {
    return (await kv.get<ImportMarker>(IMPORT_MARKER_KEY)).value;
  } finally {
    kv.close();
  }
}

async function assertRefused(kvPath: string): Promise<void> {
  // The hooks open the same KV in-process: they say why and leave the session alone (exit 0).
  const transcript = ["--transcript", "tests/fixtures/claude_code/session_tools.jsonl"];
  for (const hook of [["--brief"], ["--save-transcript", ...transcript, "--session-id", "s1"]]) {
    const ran = await run(["run", ...PERMISSIONS, "main.ts", ...hook], kvPath);
    assert.equal(ran.code, 0, ran.stderr);
    assert.match(
      ran.stderr,
      /cannot reach the local KV: refusing to use it: an import of big\.jsonl \(30000 entries, started .*\) did not finish/,
    );
  }
  for (const extra of [[], ["--stdio"]]) {
    const started = await run(["run", ...PERMISSIONS, "main.ts", ...extra], kvPath);
    assert.equal(started.code, 1, `main.ts ${extra.join(" ")} served: ${started.stderr}`);
    assert.match(
      started.stderr,
      /^handoff-mcp: refusing to serve: an import of big\.jsonl \(30000 entries, started .*\) did not finish: this database holds only part of it\. run the same `deno task import <file>` again to complete it, or `deno task import --abandon`/,
    );
  }
}

async function withInterrupted(fn: (file: string, kvPath: string) => Promise<void>) {
  const dir = await tempKvPath();
  const file = dir.path.replace(/test\.kv$/, "big.jsonl");
  try {
    await writeExport(file);
    await killedImport(file, dir.path);
    assert.equal((await marker(dir.path))?.state, "running");
    await assertRefused(dir.path);
    await fn(file, dir.path);
  } finally {
    await dir.cleanup();
  }
}

Deno.test("a killed import: the server refuses to start until the same import is run again", async () => {
  await withInterrupted(async (file, kvPath) => {
    const again = await run(["task", "-q", "import", file], kvPath);
    assert.equal(again.code, 0, again.stderr);
    assert.equal((await marker(kvPath))?.state, "done");
    const kv = await openKv(kvPath);
    try {
      const keys = await Array.fromAsync(kv.list({ prefix: ["n"] }));
      assert.equal(keys.length, ENTRIES);
    } finally {
      kv.close();
    }
    const server = await spawnServer({ KV_PATH: kvPath });
    await server.close();
  });
});

Deno.test("a killed import: `deno task import --abandon` keeps what it wrote and lets a server start", async () => {
  await withInterrupted(async (_file, kvPath) => {
    const abandoned = await run(["task", "-q", "import", "--abandon"], kvPath);
    assert.equal(abandoned.code, 0, abandoned.stderr);
    assert.match(abandoned.stderr, /abandoned the unfinished import/);
    assert.equal((await marker(kvPath))?.state, "abandoned");
    const server = await spawnServer({ KV_PATH: kvPath });
    await server.close();
    const twice = await run(["task", "-q", "import", "--abandon"], kvPath);
    assert.equal(twice.code, 1);
    assert.match(twice.stderr, /no import is unfinished on this database/);
  });
});
