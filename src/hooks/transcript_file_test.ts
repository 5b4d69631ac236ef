import assert from "node:assert/strict";
import { loadTranscriptLimits, openTranscript } from "./transcript_file.ts";

/** Every line `openTranscript` reads from a file holding `text`, `undefined` for one skipped. */
async function linesOf(text: string, lineMaxBytes: number): Promise<(string | undefined)[]> {
  const path = await Deno.makeTempFile({ suffix: ".jsonl" });
  try {
    await Deno.writeTextFile(path, text);
    const file = await openTranscript(path, { maxBytes: 1 << 30, lineMaxBytes });
    const lines: (string | undefined)[] = [];
    await file.read((line) => lines.push(line));
    return lines;
  } finally {
    await Deno.remove(path);
  }
}

Deno.test("openTranscript() reads lines across chunks, skipping (not holding) one over the line limit", async () => {
  const long = "y".repeat(300_000);
  const lines = await linesOf(`first\n${long}\n\nü日本\n${"z".repeat(2000)}\nlast`, 4096);
  assert.deepEqual(lines, [
    "first",
    undefined,
    "ü日本",
    "z".repeat(2000),
    "last",
  ]);
});

Deno.test("openTranscript() turns bad UTF-8 into U+FFFD instead of failing", async () => {
  const path = await Deno.makeTempFile();
  try {
    await Deno.writeFile(path, new Uint8Array([0x61, 0xff, 0x62, 0x0a, 0xe6, 0x97]));
    const file = await openTranscript(path, { maxBytes: 1024, lineMaxBytes: 1024 });
    const lines: (string | undefined)[] = [];
    await file.read((line) => lines.push(line));
    assert.deepEqual(lines, ["a\uFFFDb", "\uFFFD"]);
  } finally {
    await Deno.remove(path);
  }
});

Deno.test("loadTranscriptLimits() reads TRANSCRIPT_MAX_BYTES and TRANSCRIPT_LINE_MAX_BYTES", () => {
  assert.deepEqual(loadTranscriptLimits(new Map()), {
    maxBytes: 1024 * 1024 * 1024,
    lineMaxBytes: 32 * 1024 * 1024,
  });
  assert.throws(
    () => loadTranscriptLimits(new Map([["TRANSCRIPT_MAX_BYTES", "nope"]])),
    /TRANSCRIPT_MAX_BYTES/,
  );
});
