/**
 * What handoff gives the search index: each handoff (title, summary, next action, tags, then
 * its conversation in passages cut at message boundaries) and each comment. A save queues a
 * pointer (the conversation may be megabytes) that the folder reads back here; a delete,
 * eviction or merge drops the handoff and its comments in the atomic that removes them.
 */

import { listEntries, readKey } from "../kit/reads.ts";
import {
  type IndexDoc,
  PASSAGE_MAX,
  type SearchSource,
  splitPassages,
} from "../kit/search_source.ts";
import { findMessages } from "./store_messages.ts";
import { readComments, readWhole } from "./store_read.ts";
import {
  type Handoff,
  type HandoffComment,
  handoffCommentKey,
  handoffKey,
  handoffPrefix,
} from "./store_schema.ts";

const decoder = new TextDecoder();

/** The conversation in passages: whole messages together up to `PASSAGE_MAX`, long ones split. */
export function conversationPassages(text: string): string[] {
  const starts = findMessages(text).map((m) => m.index);
  if (starts[0] !== 0) starts.unshift(0);
  const out: string[] = [];
  let current = "";
  starts.forEach((start, i) => {
    const message = text.slice(start, starts[i + 1] ?? text.length);
    if (current.length + message.length > PASSAGE_MAX && current !== "") {
      out.push(current);
      current = "";
    }
    if (message.length > PASSAGE_MAX) out.push(...splitPassages(message));
    else current += message;
  });
  if (current.trim() !== "") out.push(current);
  return out;
}

/** A handoff as the index holds it. */
export function handoffDoc(h: Handoff, conversation: string): IndexDoc {
  const head = [h.summary, h.nextAction ?? "", h.tags.join(" ")].filter((s) => s !== "")
    .join("\n");
  return {
    kind: "handoff",
    ref: [h.key],
    title: h.title,
    passages: [head, ...conversationPassages(conversation)],
    meta: {
      ...(h.fromProject === null ? {} : { project_id: h.fromProject }),
      ...(h.fromAi === null ? {} : { author: h.fromAi }),
    },
    created_at: h.updatedAt,
  };
}

/** A comment on handoff `key`. */
export function commentDoc(key: string, title: string, c: HandoffComment): IndexDoc {
  return {
    kind: "comment",
    ref: [key, c.id],
    title: `Comment on ${title}`,
    passages: [c.content],
    meta: c.author === null ? {} : { author: c.author },
    created_at: c.createdAt,
  };
}

async function loadHandoffDoc(kv: Deno.Kv, [key]: string[]): Promise<IndexDoc | null> {
  const whole = await readWhole(kv, key);
  return whole === null ? null : handoffDoc(whole.entry.value, decoder.decode(whole.bytes));
}

async function loadComment(kv: Deno.Kv, [key, id]: string[]): Promise<IndexDoc | null> {
  const [h, c] = await Promise.all([
    readKey<Handoff>(kv, handoffKey(key)),
    readKey<HandoffComment>(kv, handoffCommentKey(key, id)),
  ]);
  if (h.value === null || c.value === null || !h.value.commentIds.includes(id)) return null;
  return commentDoc(key, h.value.title, c.value);
}

const item = (doc: IndexDoc | null, facts: Record<string, string> = {}) =>
  doc === null ? null : {
    title: doc.title,
    text: doc.passages.join("\n\n"),
    meta: doc.meta,
    created_at: doc.created_at,
    facts,
  };

/** Handoff's search sources. */
export const HANDOFF_SEARCH_SOURCES: SearchSource[] = [
  {
    kind: "handoff",
    mutable: true,
    load: loadHandoffDoc,
    fetch: async (kv, ref) => {
      const doc = await loadHandoffDoc(kv, ref);
      if (doc === null) return null;
      const h = (await readKey<Handoff>(kv, handoffKey(ref[0]))).value;
      const comments = h === null ? [] : await readComments(kv, h);
      const notes = comments.map((c) =>
        `\n\n## Comment by ${c.author ?? "unknown"} (${c.createdAt})\n${c.content}`
      );
      const found = item(doc, h === null ? {} : { status: h.status, key: h.key })!;
      return { ...found, text: found.text + notes.join("") };
    },
    scan: async function* (kv, after) {
      const prefix = handoffPrefix();
      const selector = after === undefined
        ? { prefix }
        : { prefix, start: [...handoffKey(after[0]), new Uint8Array()] };
      for await (const e of listEntries(kv, selector as Deno.KvListSelector)) {
        yield [String(e.key[1])];
      }
    },
  },
  {
    kind: "comment",
    mutable: true,
    load: loadComment,
    fetch: async (kv, ref) => item(await loadComment(kv, ref)),
    scan: async function* (kv, after) {
      const prefix = handoffCommentKey("", "").slice(0, 1);
      const selector = after === undefined
        ? { prefix }
        : { prefix, start: [...handoffCommentKey(after[0], after[1]), new Uint8Array()] };
      for await (const e of listEntries(kv, selector as Deno.KvListSelector)) {
        yield [String(e.key[1]), String(e.key[2])];
      }
    },
  },
];
