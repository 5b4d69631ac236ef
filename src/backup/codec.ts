/**
 * One KV entry ⇄ one JSON line, with every type KV can hold preserved: JSON types as themselves;
 * the rest as one-key objects whose key starts with `$` (`{"$bigint":"12"}`, `{"$bytes":"AAE="}`,
 * `{"$date":0}`, …). A plain object that holds a `$` key is wrapped as `{"$object":{…}}`, so a
 * tag can never be mistaken for data. Pure: no KV, no files.
 */

import { Buffer } from "node:buffer";

/** The first line of an export file. */
export const HEADER = { format: "handoff-mcp-kv", version: 1 } as const;

/** One entry as read back from a line. */
export interface Entry {
  key: Deno.KvKey;
  value: unknown;
}

/** A line that cannot be read back, with its 1-based number in the file. */
export class LineError extends Error {
  constructor(readonly line: number, reason: string) {
    super(`line ${line}: ${reason}`);
    this.name = "LineError";
  }
}

const TYPED_ARRAYS = {
  Int8Array,
  Uint8ClampedArray,
  Int16Array,
  Uint16Array,
  Int32Array,
  Uint32Array,
  Float32Array,
  Float64Array,
  BigInt64Array,
  BigUint64Array,
} as const;
type TypedName = keyof typeof TYPED_ARRAYS;

/** The header line. */
export function headerLine(): string {
  return JSON.stringify(HEADER);
}

/** The last line, which says how many entries came before it (a cut file lacks it). */
export function endLine(entries: number): string {
  return JSON.stringify({ end: { entries } });
}

/** One entry as a line (without its newline); throws naming the key if a value has no encoding. */
export function encodeEntry(key: Deno.KvKey, value: unknown): string {
  return JSON.stringify({ key: key.map(encodeKeyPart), value: encodeValue(value, key) });
}

function encodeKeyPart(part: Deno.KvKeyPart): unknown {
  if (typeof part === "string" || typeof part === "boolean") return part;
  return encodeValue(part, []);
}

function encodeValue(value: unknown, key: Deno.KvKey): unknown {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "undefined":
      return { $undefined: true };
    case "bigint":
      return { $bigint: value.toString() };
    case "number":
      if (Number.isFinite(value) && !Object.is(value, -0)) return value;
      return { $number: Object.is(value, -0) ? "-0" : String(value) };
  }
  if (value === null) return null;
  if (Array.isArray(value)) {
    return Array.from({ length: value.length }, (_, i) => encodeValue(value[i], key));
  }
  if (value instanceof Uint8Array && value.constructor === Uint8Array) {
    return { $bytes: base64(value) };
  }
  if (value instanceof Date) {
    const time = value.getTime();
    return { $date: Number.isNaN(time) ? null : time };
  }
  if (value instanceof Deno.KvU64) return { $kvu64: value.value.toString() };
  if (value instanceof Map) {
    return { $map: [...value].map(([k, v]) => [encodeValue(k, key), encodeValue(v, key)]) };
  }
  if (value instanceof Set) return { $set: [...value].map((v) => encodeValue(v, key)) };
  if (value instanceof RegExp) return { $regexp: [value.source, value.flags] };
  if (value instanceof ArrayBuffer) return { $arraybuffer: base64(new Uint8Array(value)) };
  if (ArrayBuffer.isView(value)) {
    const name = value.constructor.name as TypedName;
    if (name in TYPED_ARRAYS) {
      const bytes = new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
      return { $typed: [name, base64(bytes)] };
    }
  }
  if (typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = encodeValue(v, key);
    return Object.keys(out).some((k) => k.startsWith("$")) ? { $object: out } : out;
  }
  const kind = (value as object)?.constructor?.name ?? typeof value;
  throw new Error(
    `Cannot export key ${JSON.stringify(key, bigintText)}: a ${kind} value has no encoding`,
  );
}

/** Reads the header line; throws a `LineError` for anything else. */
export function decodeHeader(text: string, line = 1): void {
  const parsed = parseJson(text, line);
  if (JSON.stringify(parsed) !== JSON.stringify(HEADER)) {
    throw new LineError(line, `not a handoff-mcp export: the first line must be ${headerLine()}`);
  }
}

/** Reads an entry line, or the end line (then `{ end }`); throws a `LineError` naming the line. */
export function decodeLine(text: string, line: number): Entry | { end: number } {
  const parsed = parseJson(text, line);
  if (!isPlainObject(parsed)) throw new LineError(line, "expected an object with key and value");
  const fields = Object.keys(parsed).sort().join(",");
  if (fields === "end") {
    const entries = (parsed.end as { entries?: unknown } | null)?.entries;
    if (!Number.isSafeInteger(entries) || (entries as number) < 0) {
      throw new LineError(line, 'the end line must be {"end":{"entries":N}}');
    }
    return { end: entries as number };
  }
  if (fields !== "key,value") {
    throw new LineError(line, `expected exactly the fields key and value, got ${fields || "none"}`);
  }
  if (!Array.isArray(parsed.key) || parsed.key.length === 0) {
    throw new LineError(line, "key must be a non-empty array");
  }
  try {
    return { key: parsed.key.map(decodeKeyPart), value: decodeValue(parsed.value) };
  } catch (error) {
    throw new LineError(line, (error as Error).message);
  }
}

function decodeKeyPart(part: unknown): Deno.KvKeyPart {
  const value = typeof part === "object" && part !== null ? decodeValue(part) : part;
  if (
    typeof value === "string" || typeof value === "number" || typeof value === "bigint" ||
    typeof value === "boolean" || (value instanceof Uint8Array && value.constructor === Uint8Array)
  ) {
    return value;
  }
  throw new Error("a key part must be a string, number, bigint, boolean or Uint8Array");
}

function decodeValue(value: unknown): unknown {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(decodeValue);
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  if (keys.length !== 1 || !keys[0].startsWith("$")) return decodeFields(record);
  const [tag] = keys;
  const body = record[tag];
  switch (tag) {
    case "$undefined":
      return undefined;
    case "$bigint":
      return BigInt(text(body, tag, /^-?\d+$/));
    case "$number": {
      const special = text(body, tag, /^(NaN|-?Infinity|-0)$/);
      return special === "-0" ? -0 : Number(special);
    }
    case "$bytes":
      return fromBase64(text(body, tag));
    case "$date":
      if (body !== null && !Number.isFinite(body)) {
        throw new Error("$date must be a number or null");
      }
      return new Date(body === null ? NaN : body as number);
    case "$kvu64":
      return new Deno.KvU64(BigInt(text(body, tag, /^\d+$/)));
    case "$map":
      return new Map(
        list(body, tag).map((pair) => {
          if (!Array.isArray(pair) || pair.length !== 2) {
            throw new Error("$map holds [key, value] pairs");
          }
          return [decodeValue(pair[0]), decodeValue(pair[1])];
        }),
      );
    case "$set":
      return new Set(list(body, tag).map(decodeValue));
    case "$regexp": {
      const [source, flags] = list(body, tag);
      return new RegExp(text(source, tag), text(flags, tag));
    }
    case "$arraybuffer":
      return fromBase64(text(body, tag)).slice().buffer;
    case "$typed": {
      const [name, data] = list(body, tag);
      if (typeof name !== "string" || !(name in TYPED_ARRAYS)) {
        throw new Error(`$typed names an unknown array type ${JSON.stringify(name)}`);
      }
      const bytes = fromBase64(text(data, tag)).slice();
      const Typed = TYPED_ARRAYS[name as TypedName];
      if (bytes.byteLength % Typed.BYTES_PER_ELEMENT !== 0) {
        throw new Error(`$typed ${name} is cut`);
      }
      return new Typed(bytes.buffer);
    }
    case "$object":
      if (!isPlainObject(body)) throw new Error("$object must hold an object");
      return decodeFields(body);
  }
  throw new Error(`unknown tag ${tag} (objects with a $ key are written inside {"$object":…})`);
}

function decodeFields(record: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(record)) out[k] = decodeValue(v);
  return out;
}

function parseJson(text: string, line: number): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new LineError(line, "not valid JSON (the file was cut or edited)");
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function text(value: unknown, tag: string, shape?: RegExp): string {
  if (typeof value !== "string" || (shape && !shape.test(value))) {
    throw new Error(`${tag} holds a malformed value`);
  }
  return value;
}

function list(value: unknown, tag: string): unknown[] {
  if (!Array.isArray(value)) throw new Error(`${tag} must hold an array`);
  return value;
}

function base64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
}

function fromBase64(text: string): Uint8Array {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) {
    throw new Error("malformed base64");
  }
  const buffer = Buffer.from(text, "base64");
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength).slice();
}

function bigintText(_: string, v: unknown): unknown {
  return typeof v === "bigint" ? `${v}n` : v instanceof Uint8Array ? `bytes(${v.length})` : v;
}
