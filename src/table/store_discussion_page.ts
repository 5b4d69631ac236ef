/**
 * Reading a discussion: one page of its messages, and, for a reader, what was unread and the
 * read position moved to the last message shown (`store_reads.ts`).
 */

import type { Caller } from "../kit/caller.ts";
import { AppError, listEntries } from "../kit/kv.ts";
import { checkLimit, sameWorkspace, type TableCtx } from "./store_common.ts";
import { type Message, messageOut, readDiscussion } from "./store_discussions.ts";
import { markShown, readPosition } from "./store_reads.ts";
import { type Discussion, keys, type StoredMessage } from "./store_schema.ts";

/** One page of a discussion's messages. */
export interface DiscussionPage {
  discussion: Discussion;
  messages: Message[];
  has_more: boolean;
  total: number;
  latest_seq: number;
  /** How many messages were unread for the reader before this read (readers only). */
  unread_before?: number;
  warning?: string;
}

/** What a read of a discussion asks for. */
export interface PageRequest {
  discussion_id: string;
  /** Messages after this seq (default 0). */
  after_seq?: number;
  limit?: number;
  /** Only messages after the reader's position (and after `after_seq`, if given). */
  unread_only?: boolean;
  /** The last `limit` messages (the discussion resource). */
  latest?: boolean;
  /** The workspace the reader named (the resource URI's): another is refused before any write. */
  workspace?: string;
}

/**
 * Messages by seq after `after_seq` (default 0), at most `limit`; says when it is cut. With a
 * `reader`, says how many were unread for them and moves their position to the last message
 * shown (never back; no write when it does not move).
 */
export async function getDiscussion(
  ctx: TableCtx,
  input: PageRequest,
  reader?: Caller,
): Promise<DiscussionPage> {
  const limit = checkLimit(ctx, input.limit);
  let after = input.after_seq ?? 0;
  if (!Number.isInteger(after) || after < 0) {
    throw new AppError("invalid", `after_seq must be a whole number ≥ 0, got ${after}`);
  }
  const discussion = await readDiscussion(ctx, input.discussion_id);
  const { id, workspace: ws, latest_seq: latest } = discussion;
  if (input.workspace !== undefined) sameWorkspace("discussion", id, ws, input.workspace);
  const position = reader === undefined ? 0 : await readPosition(ctx, reader.name, ws, id);
  if (input.unread_only) after = Math.max(after, position);
  if (input.latest) after = Math.max(after, latest - limit);
  const messages: Message[] = [];
  if (after < latest) {
    const iter = listEntries<StoredMessage>(ctx.kv, {
      start: keys.message(id, after + 1),
      end: keys.message(id, Math.min(latest, after + limit) + 1),
    });
    for await (const entry of iter) messages.push(messageOut(entry.value));
  }
  const last = messages.at(-1)?.seq ?? after;
  const page: DiscussionPage = {
    discussion,
    messages,
    has_more: last < latest,
    total: latest,
    latest_seq: latest,
  };
  if (reader !== undefined) {
    page.unread_before = Math.max(0, latest - position);
    await markShown(ctx, reader.name, ws, id, last, position);
  }
  if (page.has_more) {
    page.warning = `Showing ${messages.length} of ${latest} messages (seq ${
      after + 1
    }–${last}); more exist: call get_discussion with after_seq=${last} to read on.`;
  }
  return page;
}
