/**
 * Reading a discussion: one page of its messages, and, for a reader, what was unread and the
 * read position moved to the last message shown (`store_reads.ts`).
 */

import type { Caller } from "../kit/caller.ts";
import { AppError } from "../kit/errors.ts";
import { listEntries } from "../kit/reads.ts";
import { characterCount, cutAt } from "../kit/text.ts";
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
  /** The after_seq that reads on, when the page is cut. */
  next_after_seq?: number;
  /** With `next_after_seq`, when the page ends inside a message: where its body goes on. */
  next_from_char?: number;
}

/** What a read of a discussion asks for. */
export interface PageRequest {
  discussion_id: string;
  /** Messages after this seq (default 0). */
  after_seq?: number;
  /** Start the first message's body at this character (a page cut inside a long message). */
  from_char?: number;
  limit?: number;
  /** Only messages after the reader's position (and after `after_seq`, if given). */
  unread_only?: boolean;
  /** The last `limit` messages (the discussion resource). */
  latest?: boolean;
  /** The workspace the reader named (the resource URI's): another is refused before any write. */
  workspace?: string;
}

/** A discussion's messages as read from KV, before the page shown is chosen. */
export interface FetchedDiscussion {
  discussion: Discussion;
  /** The messages after `after` (at most `limit`), the first one's body from `fromChar` on. */
  messages: Message[];
  after: number;
  /** Characters of the first message's body an earlier page showed (`from_char`), else 0. */
  fromChar: number;
  /** The reader's position before this read (0 without a reader). */
  position: number;
  reader?: Caller;
}

/**
 * Messages by seq after `after_seq` (default 0), at most `limit`, the first one's body from
 * character `from_char` on; nothing is written yet (`settleRead` moves the reader's position).
 */
export async function fetchDiscussion(
  ctx: TableCtx,
  input: PageRequest,
  reader?: Caller,
): Promise<FetchedDiscussion> {
  const limit = checkLimit(ctx, input.limit);
  let after = input.after_seq ?? 0;
  if (!Number.isInteger(after) || after < 0) {
    throw new AppError("invalid", `after_seq must be a whole number ≥ 0, got ${after}`);
  }
  const discussion = await readDiscussion(ctx, input.discussion_id);
  const { id, workspace: ws, latest_seq: latest } = discussion;
  if (input.workspace !== undefined) sameWorkspace("discussion", id, ws, input.workspace);
  const position = reader === undefined ? 0 : await readPosition(ctx, reader.name, ws, id);
  const requested = after;
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
  // from_char reads inside the message after after_seq, so it holds only when that is where
  // the read starts (unread_only may have moved it past).
  const fromChar = input.from_char && after === requested && messages.length > 0
    ? input.from_char
    : 0;
  if (fromChar > 0) {
    const body = messages[0].body;
    messages[0] = { ...messages[0], body: body.slice(unitOf(body, fromChar, after + 1)) };
  }
  return { discussion, messages, after, fromChar, position, reader };
}

/** The UTF-16 index of character `chars` of `body`, refused past its end. */
function unitOf(body: string, chars: number, seq: number): number {
  let index = 0;
  for (let n = 0; n < chars; n++) {
    if (index >= body.length) {
      throw new AppError(
        "invalid",
        `from_char ${chars} is past the end of message ${seq}, which has ${n} characters`,
      );
    }
    const c = body.charCodeAt(index);
    index += c >= 0xd800 && c <= 0xdbff ? 2 : 1;
  }
  return index;
}

/**
 * The page showing the first `shown` fetched messages and, when `part` is given, the first
 * `part` UTF-16 units of the next one's body; it says when it is cut and what reads on.
 */
export function discussionPage(f: FetchedDiscussion, shown: number, part?: number): DiscussionPage {
  const latest = f.discussion.latest_seq;
  const messages = f.messages.slice(0, shown);
  let next: { after_seq: number; from_char?: number } | null;
  if (part !== undefined) {
    const m = f.messages[shown];
    const piece = m.body.slice(0, cutAt(m.body, part));
    messages.push({ ...m, body: piece });
    const before = shown === 0 ? f.fromChar : 0;
    next = { after_seq: m.seq - 1, from_char: before + characterCount(piece) };
  } else {
    const last = messages.at(-1)?.seq ?? f.after;
    next = last < latest ? { after_seq: last } : null;
  }
  const page: DiscussionPage = {
    discussion: f.discussion,
    messages,
    has_more: next !== null,
    total: latest,
    latest_seq: latest,
  };
  if (f.reader !== undefined) page.unread_before = Math.max(0, latest - f.position);
  if (next !== null) {
    page.next_after_seq = next.after_seq;
    if (next.from_char !== undefined) page.next_from_char = next.from_char;
    const args = `after_seq=${next.after_seq}${
      next.from_char === undefined ? "" : ` and from_char=${next.from_char}`
    }`;
    const inside = part === undefined
      ? ""
      : ` Message ${
        f.messages[shown].seq
      } is longer than a page: its body is cut here and goes on in the next page.`;
    page.warning = `Showing ${messages.length} of ${latest} messages (seq ${f.after + 1}–${
      messages.at(-1)?.seq ?? f.after
    }).${inside} More exist: call get_discussion with ${args} to read on.`;
  }
  return page;
}

/**
 * After a page is chosen: the reader's position moves to the last message it showed whole
 * (never back; no write when it does not move).
 */
export async function settleRead(ctx: TableCtx, f: FetchedDiscussion, page: DiscussionPage) {
  if (f.reader === undefined) return;
  const whole = page.next_from_char === undefined ? page.messages : page.messages.slice(0, -1);
  const last = whole.at(-1)?.seq ?? f.after;
  const { id, workspace } = f.discussion;
  await markShown(ctx, f.reader.name, workspace, id, last, f.position);
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
  const f = await fetchDiscussion(ctx, input, reader);
  const page = discussionPage(f, f.messages.length);
  await settleRead(ctx, f, page);
  return page;
}
