/**
 * What an import reads: the files named, every file under a folder named, and every entry of a
 * zip (read as it is). Each becomes a `ChatSource` that can be opened as a stream; which export
 * it belongs to is found from its content later, never from its name.
 */

import { join } from "node:path";
import { looksLikeZip, openEntry, zipEntries, ZipError } from "./zip.ts";

/** One file to read. */
export interface ChatSource {
  /** For messages: the path, or `archive.zip:entry`. */
  name: string;
  /** Bytes it holds (uncompressed). */
  size: number;
  /** True when the user named it: a file that is no export is then an error, not ignored. */
  named: boolean;
  open(): Promise<ReadableStream<Uint8Array>>;
}

/** The sources of `paths`, and the problems of paths that cannot be read (named, not thrown). */
export async function sourcesOf(
  paths: string[],
): Promise<{ sources: ChatSource[]; problems: string[] }> {
  const sources: ChatSource[] = [];
  const problems: string[] = [];
  for (const path of paths) {
    try {
      await addPath(path, true, sources);
    } catch (error) {
      problems.push(`${path}: ${(error as Error).message}`);
    }
  }
  return { sources, problems };
}

async function addPath(path: string, named: boolean, out: ChatSource[]): Promise<void> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(path);
  } catch {
    throw new Error("cannot read it: no such file or folder");
  }
  if (info.isDirectory) {
    const names: string[] = [];
    for await (const entry of Deno.readDir(path)) names.push(entry.name);
    for (const name of names.sort()) {
      if (!name.startsWith(".")) await addPath(join(path, name), false, out);
    }
    return;
  }
  if (!info.isFile) return;
  if (await isZipFile(path)) {
    let entries;
    try {
      entries = await zipEntries(path);
    } catch (error) {
      if (error instanceof ZipError) throw new Error(`zip: ${error.message}`);
      throw error;
    }
    for (const entry of entries.sort((a, b) => a.name < b.name ? -1 : 1)) {
      out.push({
        name: `${path}:${entry.name}`,
        size: entry.size,
        named: false,
        open: () => openEntry(path, entry),
      });
    }
    return;
  }
  out.push({
    name: path,
    size: info.size,
    named,
    open: async () => (await Deno.open(path)).readable,
  });
}

async function isZipFile(path: string): Promise<boolean> {
  using file = await Deno.open(path);
  const head = new Uint8Array(4);
  const n = await file.read(head);
  return n === 4 && looksLikeZip(head);
}
