import assert from "node:assert/strict";
import { type Line, LineBuffer } from "./stdio_lines.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

Deno.test("LineBuffer keeps no view of a chunk, so the reader may read into the same buffer again", () => {
  const lines = new LineBuffer(1000);
  const buffer = new Uint8Array(64);
  const read = (text: string): Line[] => {
    const chunk = bytes(text);
    buffer.set(chunk);
    const got = lines.push(buffer.subarray(0, chunk.length));
    buffer.fill(0x7a); // the next read overwrites the buffer
    return got;
  };
  assert.deepEqual(read('{"a":1}\n{"b":'), [{ text: '{"a":1}' }]);
  assert.deepEqual(read('2}\n{"c":"é'), [{ text: '{"b":2}' }]);
  assert.deepEqual(read('"}\n\n'), [{ text: '{"c":"é"}' }, { text: "" }]);
  assert.deepEqual(lines.end(), { text: "" });
});

Deno.test("LineBuffer joins a character split across chunks, and limits lines in bytes", () => {
  const lines = new LineBuffer(8);
  const e = bytes("é"); // two bytes
  assert.deepEqual(lines.push(new Uint8Array([0x61, e[0]])), []);
  assert.deepEqual(lines.push(new Uint8Array([e[1], 0x0a])), [{ text: "aé" }]);
  assert.deepEqual(lines.push(bytes("12345678\n123456789\n")), [
    { text: "12345678" },
    { tooLong: true, id: null },
  ]);
  assert.deepEqual(lines.push(bytes('{"id":7,"x":"long"}\nok')), [{ tooLong: true, id: 7 }]);
  assert.deepEqual(lines.end(), { text: "ok" });
});

Deno.test("LineBuffer finds the id at either end of a line over the limit read in many chunks", () => {
  const lines = new LineBuffer(1024);
  const message = (id: string) =>
    `{"jsonrpc":"2.0","method":"ping","params":{"pad":"${"x".repeat(5000)}"},"id":${id}}\n`;
  const chunks = (text: string) => text.match(/[^]{1,100}/g)!.map(bytes);
  const got = [...chunks(message("41")), ...chunks(message('"last"')), bytes('{"id":3}\n')]
    .flatMap((chunk) => lines.push(chunk));
  assert.deepEqual(got, [
    { tooLong: true, id: 41 },
    { tooLong: true, id: "last" },
    { text: '{"id":3}' },
  ]);
});

Deno.test("LineBuffer does not carry a character cut short by a newline into the next line", () => {
  const lines = new LineBuffer(100);
  const e = bytes("é");
  assert.deepEqual(lines.push(new Uint8Array([0x61, e[0], 0x0a, 0x62, 0x0a])), [
    { text: "a\ufffd" },
    { text: "b" },
  ]);
});
