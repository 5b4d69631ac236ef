/** The workspaces KV knows of, found by name (resource completions). */

import { listAll } from "../kit/reads.ts";
import type { TableCtx } from "./store_common.ts";
import { keys } from "./store_schema.ts";

/** Workspaces whose name starts with `prefix`, in name order, at most `max` (completions). */
export async function workspacesStartingWith(
  ctx: TableCtx,
  prefix: string,
  max: number,
): Promise<string[]> {
  const found: string[] = [];
  const end = [...keys.countsOf(), `${prefix}\u{10FFFF}`];
  let start: Deno.KvKey = [...keys.countsOf(), prefix];
  while (found.length < max) {
    const [e] = await listAll(ctx.kv, { start, end }, { limit: 1 });
    if (e === undefined) break;
    const ws = e.key[1] as string;
    found.push(ws);
    // Past every counter of `ws`: the next key is the next workspace's first counter.
    start = [...keys.countsOf(), `${ws}\u0000`];
  }
  return found;
}
