/**
 * The packed forms of the index: postings (varints, a value per bucket and segment, split in
 * parts under one KV value) and blocks of passages (deflated JSON). Both are immutable once
 * written; a block is rewritten only to drop passages of a deleted item.
 */

/** One passage as a block stores it. */
export interface StoredDoc {
  /** Local number in its segment. */
  n: number;
  k: string;
  r: string[];
  /** Passage number within the item (0 carries the title's weight). */
  p: number;
  t: string;
  x: string;
  m: { w?: string; pr?: string; a?: string; v?: string };
  /** Created, ms since epoch. */
  c: number;
  /** Expires, ms since epoch. */
  e?: number;
}

/** One posting: a passage of a segment, its weighted term frequency and its quantized length. */
export interface Posting {
  seg: number;
  local: number;
  tf: number;
  dl: number;
}

/** Bytes per postings value part (under KV's 64 KiB value limit). */
const PART_BYTES = 60_000;
const enc = new TextEncoder();

class Writer {
  bytes = new Uint8Array(1024);
  length = 0;
  byte(b: number): void {
    if (this.length === this.bytes.length) {
      const next = new Uint8Array(this.bytes.length * 2);
      next.set(this.bytes);
      this.bytes = next;
    }
    this.bytes[this.length++] = b;
  }
  varint(n: number): void {
    while (n >= 0x80) {
      this.byte((n & 0x7f) | 0x80);
      n = Math.floor(n / 128);
    }
    this.byte(n);
  }
  raw(b: Uint8Array): void {
    for (const x of b) this.byte(x);
  }
  done(): Uint8Array {
    return this.bytes.slice(0, this.length);
  }
}

/** A document length (in words) in one byte: exact to 64, then logarithmic. */
export function quantizeLength(n: number): number {
  if (n < 64) return n;
  return Math.min(255, 64 + Math.round(Math.log2(n / 64) * 24));
}

/** The length a quantized byte stands for. */
export function lengthOf(q: number): number {
  return q < 64 ? q : Math.round(64 * 2 ** ((q - 64) / 24));
}

/**
 * Packs one bucket's terms of a segment (term → postings sorted by local number) into values
 * under `PART_BYTES` each; a long postings list continues in the next part under its term.
 */
export function packPostings(
  terms: Map<string, { local: number; tf: number; dl: number }[]>,
): Uint8Array[] {
  const parts: Uint8Array[] = [];
  const sorted = [...terms.keys()].sort();
  let entries: Uint8Array[] = [];
  let size = 0;
  const flush = () => {
    if (entries.length === 0) return;
    const w = new Writer();
    w.varint(entries.length);
    for (const e of entries) w.raw(e);
    parts.push(w.done());
    entries = [];
    size = 0;
  };
  for (const term of sorted) {
    const list = terms.get(term)!;
    const name = enc.encode(term);
    let i = 0;
    while (i < list.length) {
      const w = new Writer();
      let prev = 0;
      let count = 0;
      const start = i;
      while (i < list.length && w.length < PART_BYTES - size - 64 - name.length) {
        const p = list[i++];
        w.varint(p.local - prev);
        w.varint(p.tf);
        w.byte(p.dl);
        prev = p.local;
        count++;
      }
      if (count === 0 || (start === i)) {
        flush();
        continue;
      }
      const body = w.done();
      const head = new Writer();
      head.varint(name.length);
      head.raw(name);
      head.varint(count);
      head.varint(body.length);
      head.raw(body);
      const entry = head.done();
      entries.push(entry);
      size += entry.length;
      if (i < list.length || size > PART_BYTES - 1024) flush();
    }
  }
  flush();
  return parts;
}

/** A query word as postings are searched for it: its UTF-8 bytes, exact or as a prefix. */
export interface WantedTerm {
  bytes: Uint8Array;
  prefix: boolean;
}

/** The UTF-8 form of a query word, made once per query. */
export function wanted(term: string, prefix: boolean): WantedTerm {
  return { bytes: enc.encode(term), prefix };
}

/**
 * The postings in `part` of the term `want` names (or of every term it is a prefix of),
 * appended to `out`. Term names are compared as bytes, never decoded: a part holds thousands.
 */
export function readPostings(
  part: Uint8Array,
  seg: number,
  want: WantedTerm,
  out: Posting[],
): void {
  let pos = 0;
  const varint = () => {
    let n = 0;
    let mul = 1;
    for (;;) {
      const b = part[pos++];
      n += (b & 0x7f) * mul;
      if (b < 0x80) return n;
      mul *= 128;
    }
  };
  const w = want.bytes;
  const entries = varint();
  for (let e = 0; e < entries; e++) {
    const nameLen = varint();
    let match = want.prefix ? nameLen >= w.length : nameLen === w.length;
    for (let i = 0; match && i < w.length; i++) match = part[pos + i] === w[i];
    pos += nameLen;
    const count = varint();
    const bodyLen = varint();
    const end = pos + bodyLen;
    if (!match) {
      pos = end;
      continue;
    }
    let local = 0;
    for (let i = 0; i < count; i++) {
      local += varint();
      const tf = varint();
      const dl = part[pos++];
      out.push({ seg, local, tf, dl });
    }
    pos = end;
  }
}

/** Deflates a block's passages. */
export async function packBlock(docs: StoredDoc[]): Promise<Uint8Array> {
  const stream = new Blob([JSON.stringify(docs)]).stream()
    .pipeThrough(new CompressionStream("deflate-raw"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** Inflates a block's passages. */
export async function unpackBlock(bytes: Uint8Array): Promise<StoredDoc[]> {
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream()
    .pipeThrough(new DecompressionStream("deflate-raw"));
  return JSON.parse(await new Response(stream).text()) as StoredDoc[];
}
