/** Discussions and their messages: seq is allocated by the store, contiguous per discussion. */

import { indexRecord } from "../kit/search_source.ts";
import { messageDoc } from "./search.ts";
import {
  atomic,
  type BatchAttempt,
  commitBatched,
  commitWithRetry,
  type Outcome,
  StaleRead,
  type Tell,
} from "../kit/commit.ts";
import type { Caller } from "../kit/caller.ts";
import { AppError } from "../kit/errors.ts";
import { listAll, readKey } from "../kit/reads.ts";
import { nowIso } from "../kit/time.ts";
import {
  bump,
  checkBody,
  checkTitle,
  checkUlid,
  chooseWorkspace,
  newRecord,
  noteParticipant,
  requireRecord,
  sameWorkspace,
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
import { announce, discussionTopic } from "./store_notices.ts";
import { movePosition } from "./store_reads.ts";

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
  const body = input.body === undefined
    ? undefined
    : checkBody(ctx, "body", input.body, "messageMaxBytes");
  return await commitWithRetry(() => {
    const at = nowIso(ctx.settings.now());
    const { id, op, author } = newRecord(ctx, ws, caller, keys.discussion);
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
    if (body === undefined) bump(op, ws, "discussions_empty", 1);
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
      indexRecord(op, messageDoc(discussion, message));
      op.sum(keys.spoke(ws, caller.name, "messages"), 1n);
      movePosition(op, caller.name, ws, id, 1);
    }
    const tell = announce(ctx, op, body === undefined ? [] : [discussionTopic(id)]);
    return Promise.resolve({
      op,
      value: { ...choice, discussion, message: message && messageOut(message) },
      tell,
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

/** Most posts one atomic carries, and most bytes of their bodies (an atomic holds 800 KiB). */
export const POST_BATCH = { posts: 32, bytes: 256 * 1024 };

/** A post waiting for its discussion's turn. */
interface PendingPost {
  caller: Caller;
  kind: MessageKind;
  body: string;
  in_reply_to?: number;
}

/** What a post returns: the message and the discussion just after it. */
type Posted = { message: Message; discussion: Discussion };

/**
 * Appends a message; its seq is the discussion's next, checked-and-set in the same atomic.
 * Posts to one discussion in this process take turns (`commitBatched`); whoever's turn comes
 * commits every post waiting behind it too, in arrival order, in one atomic (at most
 * `POST_BATCH`; see kit/key_batch.ts), so a busy discussion costs one commit per turn rather
 * than one per post.
 */
export async function postMessage(
  ctx: TableCtx,
  caller: Caller,
  input: NewMessage,
): Promise<Posted> {
  const id = checkUlid("discussion_id", input.discussion_id);
  const body = checkBody(ctx, "body", input.body, "messageMaxBytes");
  const reply = input.in_reply_to;
  if (reply !== undefined && (!Number.isInteger(reply) || reply < 1)) {
    throw new AppError("invalid", `in_reply_to must be the seq of a message (a whole number ≥ 1)`);
  }
  const post: PendingPost = { caller, kind: input.kind ?? "note", body, in_reply_to: reply };
  return await commitBatched<PendingPost, Posted>(
    { kv: ctx.kv, key: keys.discussion(id) },
    post,
    (batch, tries) => postsAttempt(ctx, id, batch, tries),
    (batch, next) =>
      batch.length < POST_BATCH.posts &&
      batch.reduce((n, p) => n + p.body.length * 3, next.body.length * 3) <= POST_BATCH.bytes,
  );
}

/** One try at appending `batch` to discussion `id`, each post refused alone if it must be. */
async function postsAttempt(
  ctx: TableCtx,
  id: string,
  batch: readonly PendingPost[],
  tries: number,
): Promise<BatchAttempt<Posted>> {
  const entry = await readKey<Discussion>(ctx.kv, keys.discussion(id));
  const before = requireDiscussion(entry, id);
  const op = atomic(ctx.kv).check(entry);
  // A failed try may mean the record is behind its messages (a restore of an export taken while
  // posts landed): move past them rather than fail the same check until the retry budget ends.
  let current = tries === 0 ? before : await pastStoredMessages(ctx, op, before);
  const landed: { message: StoredMessage; discussion: Discussion; caller: Caller }[] = [];
  const outcomes: Outcome<Posted>[] = [];
  for (const p of batch) {
    if (p.in_reply_to !== undefined && p.in_reply_to > current.latest_seq) {
      // Refused only once a try has also looked past the record (see pastStoredMessages).
      if (tries === 0) throw new StaleRead(`discussion ${id} may be behind its messages`);
      outcomes.push({
        error: new AppError(
          "invalid",
          `in_reply_to ${p.in_reply_to} names no message: discussion ${id} has seqs 1..${current.latest_seq}`,
        ),
      });
      continue;
    }
    const message = addMessage(ctx, op, current, p.caller, p);
    current = { ...current, latest_seq: message.seq, last_message_at: message.created_at };
    landed.push({ message, discussion: current, caller: p.caller });
    outcomes.push({ value: { message: messageOut(message), discussion: current } });
  }
  if (landed.length === 0) return { value: outcomes };
  setActivity(op, before, current);
  movePositions(op, current, landed);
  return { op, value: outcomes, tell: announce(ctx, op, [discussionTopic(id)]) };
}

/**
 * `d` as its stored messages say it is: when a message exists past `d.latest_seq` (only a
 * record restored behind its messages has one), the counter moves to the last of them, and the
 * discussion stops counting as empty if it did. Written only with the post in `op`, which checks
 * the record, so a concurrent post elsewhere still makes this try fail and read afresh.
 */
async function pastStoredMessages(
  ctx: TableCtx,
  op: Deno.AtomicOperation,
  d: Discussion,
): Promise<Discussion> {
  const [last] = await listAll<StoredMessage>(ctx.kv, { prefix: keys.messagesOf(d.id) }, {
    reverse: true,
    limit: 1,
  });
  if (last === undefined || last.value.seq <= d.latest_seq) return d;
  if (d.latest_seq === 0) bump(op, d.workspace, "discussions_empty", -1);
  return { ...d, latest_seq: last.value.seq, last_message_at: last.value.created_at };
}

/** Moves each poster's read position to its last post of the batch: one `max` per poster. */
function movePositions(
  op: Deno.AtomicOperation,
  d: Discussion,
  landed: readonly { message: StoredMessage; caller: Caller }[],
): void {
  const last = new Map<string, number>();
  for (const { message, caller } of landed) last.set(caller.name.toLowerCase(), message.seq);
  for (const [name, seq] of last) movePosition(op, name, d.workspace, d.id, seq);
}

/**
 * Adds the next message of `read` (past any stored beyond it) to `op` (which must check `read`):
 * the message, the discussion's new counter and activity, and the author's message count and
 * sighting, the author's read position and the discussion's notice (`tell`, for the attempt).
 * Used by `resolve_decision` to post its note in the same atomic as the
 * verdict.
 */
export async function appendMessage(
  ctx: TableCtx,
  op: Deno.AtomicOperation,
  read: Discussion,
  caller: Caller,
  input: { kind: MessageKind; body: string; in_reply_to?: number },
): Promise<
  { message: StoredMessage; discussion: Discussion; tell: Tell }
> {
  // A verdict is rare: always look past the record, so a restored one never blocks it.
  const current = await pastStoredMessages(ctx, op, read);
  const message = addMessage(ctx, op, current, caller, input);
  const discussion = { ...current, latest_seq: message.seq, last_message_at: message.created_at };
  setActivity(op, read, discussion);
  movePosition(op, caller.name, current.workspace, current.id, message.seq);
  return { message, discussion, tell: announce(ctx, op, [discussionTopic(current.id)]) };
}

/**
 * Adds message `latest_seq + 1` of `current` to `op` with its author's message count and
 * sighting; the discussion is not written.
 */
function addMessage(
  ctx: TableCtx,
  op: Deno.AtomicOperation,
  current: Discussion,
  caller: Caller,
  input: { kind: MessageKind; body: string; in_reply_to?: number },
): StoredMessage {
  const seq = current.latest_seq + 1;
  const author = noteParticipant(op, current.workspace, caller, "messages");
  // The first message: the discussion stops counting as empty (store_reads.ts counts on it).
  if (seq === 1) bump(op, current.workspace, "discussions_empty", -1);
  const message: StoredMessage = {
    discussion_id: current.id,
    seq,
    kind: input.kind,
    body: pack(input.body),
    ...(input.in_reply_to === undefined ? {} : { in_reply_to: input.in_reply_to }),
    author,
    created_at: nowIso(ctx.settings.now()),
  };
  op.check({ key: keys.message(current.id, seq), versionstamp: null })
    .set(keys.message(current.id, seq), message);
  indexRecord(op, messageDoc(current, message));
  return message;
}

/** Writes `after` over `before` (the same discussion): its record and its activity entry. */
function setActivity(op: Deno.AtomicOperation, before: Discussion, after: Discussion): void {
  const ws = after.workspace;
  op.set(keys.discussion(after.id), after)
    .delete(keys.activity(ws, before.last_message_at, before.id))
    .set(keys.activity(ws, after.last_message_at, after.id), summaryOf(after));
}

/** The discussion of `entry`, or a not-found error naming `id`. */
export function requireDiscussion(entry: Deno.KvEntryMaybe<Discussion>, id: string): Discussion {
  return requireRecord(entry, "discussion", id, "get_workspace_context");
}

/** Checks that discussion `id`, when one is named, exists in workspace `ws`. */
export async function checkDiscussionIn(
  ctx: TableCtx,
  id: string | undefined,
  ws: string,
): Promise<void> {
  if (id === undefined) return;
  const discussion = await readDiscussion(ctx, id);
  sameWorkspace("discussion", discussion.id, discussion.workspace, ws);
}

/** Reads one discussion, or throws not found. */
export async function readDiscussion(ctx: TableCtx, id: string): Promise<Discussion> {
  checkUlid("discussion_id", id);
  return requireDiscussion(await readKey<Discussion>(ctx.kv, keys.discussion(id)), id);
}

/**
 * Discussions of a workspace by latest activity, newest first, at most `limit` (how many there
 * are is the workspace's `discussions` counter).
 */
export async function recentDiscussions(
  ctx: TableCtx,
  ws: string,
  limit: number,
): Promise<DiscussionSummary[]> {
  const entries = await listAll<DiscussionSummary>(ctx.kv, { prefix: keys.activityIn(ws) }, {
    reverse: true,
    limit,
  });
  return entries.map((e) => e.value);
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
