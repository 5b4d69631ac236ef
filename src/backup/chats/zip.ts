/**
 * Reading a zip as it is, without unpacking it: the central directory at its end lists the
 * entries (ZIP64 too, for exports over 4 GiB or 65,535 files), and one entry is streamed from
 * its offset, inflated by the runtime's `DecompressionStream("deflate-raw")`. Only one read
 * buffer is held at a time.
 */

/** The file is not a zip, or is cut short. */
export class ZipError extends Error {}

/** One file in the zip. */
export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflated. */
  method: number;
  compressedSize: number;
  size: number;
  /** Offset of the entry's local header. */
  offset: number;
}

const READ_SIZE = 1024 * 1024;

/** True when `head` (the file's first bytes) starts a zip. */
export function looksLikeZip(head: Uint8Array): boolean {
  return head.length >= 4 && head[0] === 0x50 && head[1] === 0x4b &&
    (head[2] === 3 || head[2] === 5) && (head[3] === 4 || head[3] === 6);
}

async function readAt(file: Deno.FsFile, offset: number, length: number): Promise<Uint8Array> {
  const out = new Uint8Array(length);
  await file.seek(offset, Deno.SeekMode.Start);
  let at = 0;
  while (at < length) {
    const n = await file.read(out.subarray(at));
    if (n === null) throw new ZipError("truncated: the zip ends before its directory says");
    at += n;
  }
  return out;
}

/** Where the central directory is, from the end-of-directory records. */
async function directory(
  file: Deno.FsFile,
  size: number,
): Promise<{ offset: number; length: number; count: number }> {
  const tailLength = Math.min(size, 65_557);
  const tail = await readAt(file, size - tailLength, tailLength);
  const view = new DataView(tail.buffer);
  let at = -1;
  for (let i = tail.length - 22; i >= 0; i--) {
    if (view.getUint32(i, true) === 0x06054b50) {
      at = i;
      break;
    }
  }
  if (at < 0) {
    throw new ZipError("not a complete zip: no end of central directory (truncated?)");
  }
  let count = view.getUint16(at + 10, true);
  let length = view.getUint32(at + 12, true);
  let offset = view.getUint32(at + 16, true);
  if (count === 0xffff || length === 0xffffffff || offset === 0xffffffff) {
    const locator = at - 20;
    if (locator < 0 || view.getUint32(locator, true) !== 0x07064b50) {
      throw new ZipError("ZIP64 locator missing: the zip is damaged");
    }
    const z64 = Number(view.getBigUint64(locator + 8, true));
    const record = new DataView((await readAt(file, z64, 56)).buffer);
    if (record.getUint32(0, true) !== 0x06064b50) throw new ZipError("ZIP64 record damaged");
    count = Number(record.getBigUint64(32, true));
    length = Number(record.getBigUint64(40, true));
    offset = Number(record.getBigUint64(48, true));
  }
  if (offset + length > size) throw new ZipError("truncated: the central directory is cut off");
  return { offset, length, count };
}

/** Reads sizes and offset from a ZIP64 extra field where the 32-bit ones are saturated. */
function zip64Values(extra: DataView, entry: ZipEntry): void {
  for (let at = 0; at + 4 <= extra.byteLength;) {
    const id = extra.getUint16(at, true), length = extra.getUint16(at + 2, true);
    if (id === 0x0001) {
      let p = at + 4;
      const next = () => {
        const v = Number(extra.getBigUint64(p, true));
        p += 8;
        return v;
      };
      if (entry.size === 0xffffffff) entry.size = next();
      if (entry.compressedSize === 0xffffffff) entry.compressedSize = next();
      if (entry.offset === 0xffffffff) entry.offset = next();
      return;
    }
    at += 4 + length;
  }
}

/** The entries of the zip at `path`, from its central directory. */
export async function zipEntries(path: string): Promise<ZipEntry[]> {
  using file = await Deno.open(path);
  const size = (await file.stat()).size;
  const dir = await directory(file, size);
  const bytes = await readAt(file, dir.offset, dir.length);
  const view = new DataView(bytes.buffer);
  const decoder = new TextDecoder();
  const entries: ZipEntry[] = [];
  let at = 0;
  for (let i = 0; i < dir.count; i++) {
    if (at + 46 > bytes.length || view.getUint32(at, true) !== 0x02014b50) {
      throw new ZipError(`central directory damaged at entry ${i}`);
    }
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    const entry: ZipEntry = {
      name: decoder.decode(bytes.subarray(at + 46, at + 46 + nameLength)),
      method: view.getUint16(at + 10, true),
      compressedSize: view.getUint32(at + 20, true),
      size: view.getUint32(at + 24, true),
      offset: view.getUint32(at + 42, true),
    };
    const extraAt = at + 46 + nameLength;
    zip64Values(new DataView(bytes.buffer, extraAt, extraLength), entry);
    if (!entry.name.endsWith("/")) entries.push(entry);
    at = extraAt + extraLength + commentLength;
  }
  return entries;
}

/** A stream of the entry's bytes (inflated), read from the zip at `path` as it is consumed. */
export async function openEntry(
  path: string,
  entry: ZipEntry,
): Promise<ReadableStream<Uint8Array>> {
  if (entry.method !== 0 && entry.method !== 8) {
    throw new ZipError(
      `${entry.name}: compression method ${entry.method} is not supported (stored or deflate)`,
    );
  }
  const file = await Deno.open(path);
  try {
    const size = (await file.stat()).size;
    const header = new DataView((await readAt(file, entry.offset, 30)).buffer);
    if (header.getUint32(0, true) !== 0x04034b50) {
      throw new ZipError(`${entry.name}: local header damaged`);
    }
    const start = entry.offset + 30 + header.getUint16(26, true) + header.getUint16(28, true);
    if (start + entry.compressedSize > size) {
      throw new ZipError(`${entry.name}: truncated: the zip ends inside this file`);
    }
    await file.seek(start, Deno.SeekMode.Start);
    let left = entry.compressedSize;
    const raw = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (left === 0) {
          file.close();
          controller.close();
          return;
        }
        const buffer = new Uint8Array(Math.min(READ_SIZE, left));
        const n = await file.read(buffer);
        if (n === null) {
          file.close();
          controller.error(new ZipError(`${entry.name}: truncated`));
          return;
        }
        left -= n;
        controller.enqueue(buffer.subarray(0, n));
      },
      cancel() {
        file.close();
      },
    });
    return entry.method === 0 ? raw : raw.pipeThrough(
      new DecompressionStream("deflate-raw") as unknown as TransformStream<Uint8Array, Uint8Array>,
    );
  } catch (error) {
    file.close();
    throw error;
  }
}
