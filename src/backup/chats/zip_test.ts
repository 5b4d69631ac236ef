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
