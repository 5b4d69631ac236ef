/**
 * The table's notice topics (`kit/notices.ts`): a discussion's, told when a message is posted to
 * it, and a participant's waiting items, told when what waits for them changes. A write bumps
 * its topics' keys in its own atomic and tells this process's bus once it lands.
 */

import type { Tell } from "../kit/commit.ts";
import { bumpNotices } from "../kit/notice_feed.ts";
import { noticeTopic } from "../kit/notices.ts";
import type { TableCtx } from "./store_common.ts";

/** The topic of discussion `id`: a message was posted to it. */
export function discussionTopic(id: string): string {
  return noticeTopic("table", "discussion", id);
}

/**
 * The topic of `name`'s waiting items in workspace `ws` (case-insensitive, as names are); made
 * from its parts, as both may hold `/`.
 */
export function waitingTopic(ws: string, name: string): string {
  return noticeTopic("table", "waiting", ws, name.toLowerCase());
}

/**
 * Adds the bumps of `topics` to `op` and returns whom the commit tells once it lands (this
 * process's listeners): the attempt's `tell`, told by kit/commit.ts.
 */
export function announce(
  ctx: TableCtx,
  op: Deno.AtomicOperation,
  topics: readonly string[],
): Tell {
  if (topics.length > 0) bumpNotices(op, topics);
  return { bus: ctx.notices, topics };
}
