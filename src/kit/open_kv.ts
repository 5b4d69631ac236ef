/** Opening KV: a local file (its folder made), memory, KV Connect or the platform's default. */

import { retryLocked } from "./retry.ts";

/**
 * Opens KV at `path`, or the platform's default database when it is `undefined`. A file path
 * gets its missing folder created; a KV Connect URL (`http://` or `https://`, a self-hosted
 * `denokv` or a Deploy database, authorised by `DENO_KV_ACCESS_TOKEN`) is passed on untouched.
 */
export async function openKv(path: string | undefined): Promise<Deno.Kv> {
  if (path === undefined) return await Deno.openKv();
  const folder = kvFolder(path);
  if (folder !== undefined) await Deno.mkdir(folder, { recursive: true });
  // Two processes creating one new file at once can meet SQLite's lock while it sets up.
  return await retryLocked(() => Deno.openKv(path));
}

/** True when `path` is a KV Connect URL rather than a file. */
export function isKvConnectUrl(path: string): boolean {
  return /^https?:\/\//i.test(path);
}

/** The folder `openKv` must create for `path`, or `undefined` (memory, a URL, the current folder). */
export function kvFolder(path: string): string | undefined {
  if (path === ":memory:" || isKvConnectUrl(path)) return undefined;
  const slash = path.lastIndexOf("/");
  return slash > 0 ? path.slice(0, slash) : undefined;
}
