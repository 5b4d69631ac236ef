/**
 * Writing a zip as a stream (the Markdown export's download, the tests' exports): each entry is
 * deflated by the runtime's `CompressionStream("deflate-raw")` (or stored) with its CRC-32 and
 * written at once behind its local header; only the central directory's small records are kept
 * until the end. One entry is held at a time, never the whole zip.
 */

const encoder = new TextEncoder();

let table: Uint32Array | null = null;

/** CRC-32 (IEEE) of `bytes`. */
export function crc32(bytes: Uint8Array): number {
  if (table === null) {
    table = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      table[n] = c >>> 0;
    }
  }
  let crc = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) crc = table[(crc ^ bytes[i]) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

async function deflate(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream()
    .pipeThrough(new CompressionStream("deflate-raw"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** One file of a zip. */
export interface ZipInput {
  name: string;
  data: Uint8Array | string;
}

/** Most entries and bytes a zip without ZIP64 records holds. */
const MAX_ENTRIES = 0xffff;
const MAX_OFFSET = 0xffffffff;

/** Builds a zip entry by entry into `write`; `finish` writes the central directory. */
export class ZipWriter {
  readonly #central: Uint8Array[] = [];
  #offset = 0;
  constructor(readonly write: (bytes: Uint8Array) => Promise<void>, readonly store = false) {}

  /** Writes one entry. */
  async add(entry: ZipInput): Promise<void> {
    if (this.#central.length >= MAX_ENTRIES) {
      throw new Error(`a zip holds at most ${MAX_ENTRIES} files here (no ZIP64)`);
    }
    const data = typeof entry.data === "string" ? encoder.encode(entry.data) : entry.data;
    const name = encoder.encode(entry.name);
    const body = this.store ? data : await deflate(data);
    const crc = crc32(data);
    const method = this.store ? 0 : 8;
    const local = new Uint8Array(30 + name.length);
    const l = new DataView(local.buffer);
    l.setUint32(0, 0x04034b50, true);
    l.setUint16(4, 20, true);
    l.setUint16(6, 0x0800, true); // UTF-8 names
    l.setUint16(8, method, true);
    l.setUint32(14, crc, true);
    l.setUint32(18, body.length, true);
    l.setUint32(22, data.length, true);
    l.setUint16(26, name.length, true);
    local.set(name, 30);
    const central = new Uint8Array(46 + name.length);
    const c = new DataView(central.buffer);
    c.setUint32(0, 0x02014b50, true);
    c.setUint16(4, 20, true);
    c.setUint16(6, 20, true);
    c.setUint16(8, 0x0800, true);
    c.setUint16(10, method, true);
    c.setUint32(16, crc, true);
    c.setUint32(20, body.length, true);
    c.setUint32(24, data.length, true);
    c.setUint16(28, name.length, true);
    c.setUint32(42, this.#offset, true);
    central.set(name, 46);
    this.#central.push(central);
    await this.write(local);
    await this.write(body);
    this.#offset += local.length + body.length;
    if (this.#offset > MAX_OFFSET) throw new Error("a zip holds at most 4 GiB here (no ZIP64)");
  }

  /** Writes the central directory and its end record. */
  async finish(): Promise<void> {
    const size = this.#central.reduce((n, c) => n + c.length, 0);
    for (const c of this.#central) await this.write(c);
    const end = new Uint8Array(22);
    const e = new DataView(end.buffer);
    e.setUint32(0, 0x06054b50, true);
    e.setUint16(8, this.#central.length, true);
    e.setUint16(10, this.#central.length, true);
    e.setUint32(12, size, true);
    e.setUint32(16, this.#offset, true);
    await this.write(end);
  }
}

/** The bytes of a zip holding `entries` (deflated unless `store`): for small zips and tests. */
export async function zipBytes(entries: ZipInput[], store = false): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  const zip = new ZipWriter((b) => {
    parts.push(b);
    return Promise.resolve();
  }, store);
  for (const entry of entries) await zip.add(entry);
  await zip.finish();
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
