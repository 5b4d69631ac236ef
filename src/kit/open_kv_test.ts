import assert from "node:assert/strict";
import { kvFolder, openKv } from "./open_kv.ts";

Deno.test("kvFolder() is the folder of a file path, and nothing for memory or a KV Connect URL", () => {
  assert.equal(kvFolder("data/handoff.kv"), "data");
  assert.equal(kvFolder("/srv/a/b/handoff.kv"), "/srv/a/b");
  assert.equal(kvFolder("handoff.kv"), undefined);
  assert.equal(kvFolder(":memory:"), undefined);
  assert.equal(kvFolder("https://api.deno.com/databases/0a1b/connect"), undefined);
  assert.equal(kvFolder("http://127.0.0.1:4512"), undefined);
  assert.equal(kvFolder("HTTPS://kv.example.com/x/y"), undefined);
});

Deno.test("openKv() creates a nested file's folder but no folder for a KV Connect URL", async () => {
  const dir = await Deno.makeTempDir({ prefix: "handoff-mcp-openkv-" });
  const before = Deno.cwd();
  Deno.chdir(dir);
  try {
    const kv = await openKv("a/b/c.kv");
    kv.close();
    assert.ok((await Deno.stat(`${dir}/a/b/c.kv`)).isFile);
    // Nothing listens on port 9: the open fails, and it must not leave a folder named "http:".
    await assert.rejects(() => openKv("http://127.0.0.1:9/db"));
    assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name), ["a"]);
  } finally {
    Deno.chdir(before);
    await Deno.remove(dir, { recursive: true });
  }
});
