/** Discussions and their messages: seq is allocated by the store, contiguous per discussion. */

import type { Caller } from "../kit/caller.ts";
import {
  AppError,
  commitWithRetry,
  listAll,
  listEntries,
  readKey,
  readKeys,
  ulid,
} from "../kit/kv.ts";
import { SETTING_OF } from "./settings.ts";
import {
  bump,
  checkBody,
  checkLimit,
  checkTitle,
  checkUlid,
  chooseWorkspace,
  commitOnDiscussion,
  countValue,
  noteParticipant,
  nowIso,
  type TableCtx,
  type WorkspaceChoice,
} from "./store_common.ts";
import {
  type Author,
  type Discussion,
  type DiscussionSummary,
  keys,
  type MessageKind,
  pack,
  type StoredMessage,
  summaryOf,
  unpack,
} from "./store_schema.ts";

/** A message as tools and pages show it. */
export interface Message {
  discussion_id: string;
  seq: number;
  kind: MessageKind;
  body: string;
  in_reply_to: number | null;
  author: Author;
  created_at: string;
}

/** The readable form of a stored message. */
export function messageOut(m: StoredMessage): Message {
  return {
    discussion_id: m.discussion_id,
    seq: m.seq,
    kind: m.kind,
    body: unpack(m.body),
    in_reply_to: m.in_reply_to ?? null,
    author: m.author,
    created_at: m.created_at,
  };
}

/** What `create_discussion` takes. */
export interface NewDiscussion {
  title: string;
  workspace?: string;
  body?: string;
  kind?: MessageKind;
}

/** Opens a discussion; with a body, posts message seq 1 in the same atomic. */
export async function createDiscussion(
  ctx: TableCtx,
  caller: Caller,
  input: NewDiscussion,
): Promise<WorkspaceChoice & { discussion: Discussion; message: Message | null }> {
  const choice = chooseWorkspace(ctx, input.workspace);
  const ws = choice.workspace;
  const title = checkTitle(ctx, "title", input.title);
  const body = input.body === undefined ? undefined : checkMessageBody(ctx, input.body);
  return await commitWithRetry(() => {
    const at = nowIso(ctx);
    const id = ulid(ctx.settings.now());
    const op = ctx.kv.atomic().check({ key: keys.discussion(id), versionstamp: null });
    const author = noteParticipant(op, ws, caller, "actions");
    const discussion: Discussion = {
      id,
      workspace: ws,
      title,
      created_by: author,
      created_at: at,
      latest_seq: body === undefined ? 0 : 1,
      last_message_at: at,
    };
    op.set(keys.discussion(id), discussion)
      .set(keys.wsDiscussion(ws, id), id)
      .set(keys.activity(ws, at, id), summaryOf(discussion));
    bump(op, ws, "discussions", 1);
    let message: StoredMessage | null = null;
    if (body !== undefined) {
      message = {
        discussion_id: id,
        seq: 1,
        kind: input.kind ?? "note",
        body: pack(body),
        author,
        created_at: at,
      };
      op.set(keys.message(id, 1), message);
      op.sum(keys.spoke(ws, caller.name, "messages"), 1n);
      bump(op, ws, "messages", 1);
    }
    return Promise.resolve({
      op,
      value: { ...choice, discussion, message: message && messageOut(message) },
    });
  });
}

/** What `post_message` takes. */
export interface NewMessage {
  discussion_id: string;
  body: string;
  kind?: MessageKind;
  in_reply_to?: number;
}

/** Appends a message; its seq is the discussion's next, checked-and-set in the same atomic. */
export async function postMessage(
  ctx: TableCtx,
  caller: Caller,
  input: NewMessage,
): Promise<{ message: Message; discussion: Discussion }> {
  const id = checkUlid("discussion_id", input.discussion_id);
  const body = checkMessageBody(ctx, input.body);
  const reply = input.in_reply_to;
  if (reply !== undefined && (!Number.isInteger(reply) || reply < 1)) {
    throw new AppError("invalid", `in_reply_to must be the seq of a message (a whole number ≥ 1)`);
  }
  return await commitOnDiscussion(ctx.kv, id, async () => {
    const entry = await readKey<Discussion>(ctx.kv, keys.discussion(id));
    const current = requireDiscussion(entry, id);
    if (reply !== undefined && reply > current.latest_seq) {
      throw new AppError(
        "invalid",
        `in_reply_to ${reply} names no message: discussion ${id} has seqs 1..${current.latest_seq}`,
      );
    }
    const op = ctx.kv.atomic().check(entry);
    const { message, discussion } = appendMessage(ctx, op, current, caller, {
      kind: input.kind ?? "note",
      body,
      in_reply_to: reply,
    });
    return { op, value: { message: messageOut(message), discussion } };
  });
}

/**
 * Adds the next message of `current` to `op` (which must check the discussion's versionstamp):
 * the message, the discussion's new counter and activity, and the counts. Also used by
 * `resolve_decision` to post its note in the same atomic as the verdict.
 */
export function appendMessage(
  ctx: TableCtx,
  op: Deno.AtomicOperation,
  current: Discussion,
  caller: Caller,
  input: { kind: MessageKind; body: string; in_reply_to?: number },
): { message: StoredMessage; discussion: Discussion } {
  const at = nowIso(ctx);
  const seq = current.latest_seq + 1;
  const ws = current.workspace;
  const author = noteParticipant(op, ws, caller, "messages");
  const message: StoredMessage = {
    discussion_id: current.id,
    seq,
    kind: input.kind,
    body: pack(input.body),
    ...(input.in_reply_to === undefined ? {} : { in_reply_to: input.in_reply_to }),
    author,
    created_at: at,
  };
  const discussion: Discussion = { ...current, latest_seq: seq, last_message_at: at };
  op.check({ key: keys.message(current.id, seq), versionstamp: null })
    .set(keys.message(current.id, seq), message)
    .set(keys.discussion(current.id), discussion)
    .delete(keys.activity(ws, current.last_message_at, current.id))
    .set(keys.activity(ws, at, current.id), summaryOf(discussion));
  bump(op, ws, "messages", 1);
  return { message, discussion };
}

/** The discussion of `entry`, or a not-found error naming `id`. */
export function requireDiscussion(entry: Deno.KvEntryMaybe<Discussion>, id: string): Discussion {
  if (entry.value === null) {
    throw new AppError("not_found", `No discussion has id ${id}: get_workspace_context lists them`);
  }
  return entry.value;
}

/** Reads one discussion, or throws not found. */
export async function readDiscussion(ctx: TableCtx, id: string): Promise<Discussion> {
  checkUlid("discussion_id", id);
  return requireDiscussion(await readKey<Discussion>(ctx.kv, keys.discussion(id)), id);
}

/** One page of a discussion's messages. */
export interface DiscussionPage {
  discussion: Discussion;
  messages: Message[];
  has_more: boolean;
  total: number;
  latest_seq: number;
  warning?: string;
}

/** Messages by seq after `after_seq` (default 0), at most `limit`; says when it is cut. */
export async function getDiscussion(
  ctx: TableCtx,
  input: { discussion_id: string; after_seq?: number; limit?: number },
): Promise<DiscussionPage> {
  const limit = checkLimit(ctx, input.limit);
  const after = input.after_seq ?? 0;
  if (!Number.isInteger(after) || after < 0) {
    throw new AppError("invalid", `after_seq must be a whole number ≥ 0, got ${after}`);
  }
  const discussion = await readDiscussion(ctx, input.discussion_id);
  const id = discussion.id;
  const latest = discussion.latest_seq;
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
  if (page.has_more) {
    page.warning = `Showing ${messages.length} of ${latest} messages (seq ${
      after + 1
    }–${last}); more exist: call get_discussion with after_seq=${last} to read on.`;
  }
  return page;
}

/** Discussions of a workspace by latest activity, newest first, and how many there are. */
export async function recentDiscussions(
  ctx: TableCtx,
  ws: string,
  limit: number,
): Promise<{ items: DiscussionSummary[]; total: number; has_more: boolean }> {
  const [entries, [count]] = await Promise.all([
    listAll<DiscussionSummary>(ctx.kv, { prefix: keys.activityIn(ws) }, { reverse: true, limit }),
    readKeys(ctx.kv, [keys.count(ws, "discussions")]),
  ]);
  const total = countValue(count);
  const items = entries.map((e) => e.value);
  return { items, total, has_more: total > items.length };
}

/** Discussions with no message since `cutoff`, longest quiet first, at most `limit`. */
export async function quietDiscussions(
  ctx: TableCtx,
  ws: string,
  cutoff: string,
  limit: number,
): Promise<{ items: DiscussionSummary[]; has_more: boolean }> {
  const entries = await listAll<DiscussionSummary>(ctx.kv, {
    start: keys.activityIn(ws),
    end: [...keys.activityIn(ws), cutoff],
  }, { limit: limit + 1 });
  return { items: entries.slice(0, limit).map((e) => e.value), has_more: entries.length > limit };
}

function checkMessageBody(ctx: TableCtx, body: string): string {
  return checkBody("body", body, ctx.settings.limits.messageMaxBytes, SETTING_OF.messageMaxBytes);
}
