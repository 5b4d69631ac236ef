/** The zip reader on zips written by `zip_write.ts` and by Info-ZIP's `zip`, when present. */

import assert from "node:assert/strict";
import { join } from "node:path";
import { openEntry, zipEntries, ZipError } from "./zip.ts";
import { zipBytes } from "./zip_write.ts";

async function text(stream: ReadableStream<Uint8Array>): Promise<string> {
  return await new Response(stream).text();
}

Deno.test("entries are listed and streamed back, stored and deflated", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const big = "conversation ".repeat(300_000);
    for (const store of [false, true]) {
      const path = join(dir, `t${store}.zip`);
      await Deno.writeFile(
        path,
        await zipBytes([
          { name: "a.json", data: "[1]" },
          { name: "dir/ü.json", data: big },
        ], store),
      );
      const entries = await zipEntries(path);
      assert.deepEqual(entries.map((e) => [e.name, e.size]), [["a.json", 3], [
        "dir/ü.json",
        big.length,
      ]]);
      assert.equal(await text(await openEntry(path, entries[1])), big);
      assert.equal(await text(await openEntry(path, entries[0])), "[1]");
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a zip cut short is refused with a clear error", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const bytes = await zipBytes([{ name: "a.json", data: "x".repeat(10_000) }]);
    const path = join(dir, "cut.zip");
    await Deno.writeFile(path, bytes.slice(0, 100));
    await assert.rejects(
      () => zipEntries(path),
      (e) => e instanceof ZipError && /truncated/.test(e.message),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

const ZIP_TOOL = "/usr/bin/zip";
const hasZipTool = (() => {
  try {
    return Deno.statSync(ZIP_TOOL).isFile;
  } catch {
    return false;
  }
})();

Deno.test({
  name: "zips made by Info-ZIP are read, ZIP64 records and streamed entries too",
  ignore: !hasZipTool,
  async fn() {
    const dir = await Deno.makeTempDir();
    try {
      await Deno.mkdir(join(dir, "in"));
      const big = JSON.stringify(
        Array.from({ length: 2000 }, (_, i) => ({ i, text: "ü".repeat(50) })),
      );
      await Deno.writeTextFile(join(dir, "in", "conversations.json"), big);
      await Deno.writeTextFile(join(dir, "in", "user.json"), "{}");
      for (const flags of [["-q", "-r"], ["-q", "-r", "-fz"]]) {
        const path = join(dir, `t${flags.length}.zip`);
        const made = await new Deno.Command(ZIP_TOOL, { args: [...flags, path, "in"], cwd: dir })
          .output();
        assert.ok(made.success, new TextDecoder().decode(made.stderr));
        const entries = await zipEntries(path);
        const conv = entries.find((e) => e.name === "in/conversations.json")!;
        assert.equal(await text(await openEntry(path, conv)), big, flags.join(" "));
      }
      // Streamed from stdin: sizes only after the data (a data descriptor), ZIP64 by default.
      const piped = join(dir, "piped.zip");
      const child = new Deno.Command(ZIP_TOOL, { args: ["-q", piped, "-"], stdin: "piped" })
        .spawn();
      const w = child.stdin.getWriter();
      await w.write(new TextEncoder().encode(big));
      await w.close();
      assert.ok((await child.status).success);
      const [entry] = await zipEntries(piped);
      assert.equal(await text(await openEntry(piped, entry)), big);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
