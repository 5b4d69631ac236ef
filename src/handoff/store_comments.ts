/** Comments on a handoff: notes added between sessions, carried over by merges. */

import { indexRecord, unindex } from "../kit/search_source.ts";
import { commentDoc } from "./search.ts";
import { atomic, commitWithRetry } from "../kit/commit.ts";
import type { HandoffLimits } from "./settings.ts";
import { AppError, invalid } from "../kit/errors.ts";
import { ulid } from "../kit/ids.ts";
import { readKey } from "../kit/reads.ts";
import { nowIso } from "../kit/time.ts";
import { notFound } from "./store_read.ts";
import {
  type Handoff,
  type HandoffComment,
  handoffCommentKey,
  handoffKey,
} from "./store_schema.ts";
import { clip, validateKey } from "./store_validate.ts";
import { checkText, optionalName } from "../kit/text.ts";

/** Adds a comment; at most `commentsMax` per handoff. */
export async function addComment(
  kv: Deno.Kv,
  limits: HandoffLimits,
  key: string,
  content: string,
  author?: string,
): Promise<{ comment: HandoffComment; count: number }> {
  const what = "Cannot add comment";
  validateKey(key, limits, what);
  const text = checkText(content, limits.commentMaxBytes, {
    name: "content",
    setting: "HANDOFF_COMMENT_MAX_BYTES",
    what,
  })
    .trim();
  if (text === "") invalid(`${what}: content must not be empty`);
  const by = optionalName(author, limits.nameMaxChars, { name: "author", what });
  const id = ulid();
  return await commitWithRetry(async () => {
    const current = await readKey<Handoff>(kv, handoffKey(key));
    if (current.value === null) throw notFound(what, key);
    const h = current.value;
    if (h.commentIds.length >= limits.commentsMax) {
      throw new AppError(
        "full",
        `${what}: "${key}" already has ${h.commentIds.length} comments; at most ${limits.commentsMax} (HANDOFF_COMMENTS_MAX) are allowed. Delete one with handoff_delete_comment first`,
      );
    }
    const comment: HandoffComment = { id, author: by, content: text, createdAt: nowIso() };
    const op = atomic(kv).check(current)
      .check({ key: handoffCommentKey(key, id), versionstamp: null })
      .set(handoffCommentKey(key, id), comment)
      .set(handoffKey(key), { ...h, commentIds: [...h.commentIds, id] });
    indexRecord(op, commentDoc(key, h.title, comment));
    return { op, value: { comment, count: h.commentIds.length + 1 } };
  });
}

/** Deletes one comment by its id. */
export async function deleteComment(
  kv: Deno.Kv,
  limits: HandoffLimits,
  key: string,
  commentId: string,
): Promise<{ comment: HandoffComment; count: number }> {
  const what = "Cannot delete comment";
  validateKey(key, limits, what);
  return await commitWithRetry(async () => {
    const current = await readKey<Handoff>(kv, handoffKey(key));
    if (current.value === null) throw notFound(what, key);
    const h = current.value;
    const comment = h.commentIds.includes(commentId)
      ? (await readKey<HandoffComment>(kv, handoffCommentKey(key, commentId))).value
      : null;
    if (comment === null) {
      throw new AppError(
        "not_found",
        `${what}: "${key}" has no comment with id "${
          clip(commentId)
        }" (handoff_load lists comment ids)`,
      );
    }
    const commentIds = h.commentIds.filter((id) => id !== commentId);
    const op = atomic(kv).check(current)
      .delete(handoffCommentKey(key, commentId))
      .set(handoffKey(key), { ...h, commentIds });
    unindex(op, [["comment", key, commentId]]);
    return { op, value: { comment, count: commentIds.length } };
  });
}
