/**
 * `handoff_load` as a paged read: the conversation from a position (`from_char`, in characters)
 * split into items at its message starts, so `tools/result_budget.ts` cuts a page between messages,
 * or inside one message longer than a page. Pages join back into the conversation byte for byte.
 */

import { z } from "zod";
import { AppError } from "../kit/errors.ts";
import { characterCount, cutAt } from "../kit/text.ts";
import type { PagedRead } from "../tools/result_budget.ts";
import { nullableInt } from "../tools/schema.ts";
import { findMessages, lastMessagesOf, type MessageTail } from "./store_messages.ts";
import type { LoadedHandoff } from "./store_read.ts";

/** Where one page of a conversation lies, in characters (code points) of the whole. */
export interface ConversationPage {
  from_char: number;
  /** The position the next page starts at; null when this page reaches the end. */
  next_from_char: number | null;
  conversation_chars: number;
  has_more: boolean;
  /** True when the page ends inside a message (one longer than a page). */
  cut_inside_message: boolean;
}

/** The output fields a page adds to a loaded handoff. */
export const PAGE_FIELDS = {
  from_char: z.number().int().describe("Where this page's conversation starts, in characters"),
  next_from_char: nullableInt("Pass as from_char (with the same key) to read on; null at the end"),
  conversation_chars: z.number().int().describe("The whole conversation's length in characters"),
  has_more: z.boolean().describe("True when the conversation goes on past this page"),
  cut_inside_message: z.boolean().describe(
    "True when this page ends inside a message longer than a page; it continues at next_from_char",
  ),
};

/** The UTF-16 index of character (code point) `chars` of `text`, or -1 past its end. */
function indexOfChar(text: string, chars: number): number {
  let index = 0;
  for (let n = 0; n < chars; n++) {
    if (index >= text.length) return -1;
    const c = text.charCodeAt(index);
    index += c >= 0xd800 && c <= 0xdbff && index + 1 < text.length ? 2 : 1;
  }
  return index;
}

/** What one page shows: the slice of conversation, the tail it stands for, and where it lies. */
export interface LoadPageView {
  tail: MessageTail;
  page: ConversationPage;
  /** Comments are shown on the page a read starts with (no from_char), not on later ones. */
  comments: boolean;
}

/**
 * The paged read of `loaded` from `fromChar` (a later page) or from where `maxMessages` starts
 * (the first page), each page built by `render`.
 */
export function conversationRead(
  loaded: LoadedHandoff,
  options: { fromChar?: number; maxMessages?: number },
  render: (view: LoadPageView) => unknown,
): PagedRead {
  const text = loaded.conversation;
  const total = characterCount(text);
  // One scan finds the message starts, for the tail and the page's items alike.
  const starts = findMessages(text);
  const tail = lastMessagesOf(text, starts, options.maxMessages ?? Number.MAX_SAFE_INTEGER);
  let start = text.length - tail.text.length;
  if (options.fromChar !== undefined) {
    start = indexOfChar(text, options.fromChar);
    if (start < 0) {
      throw new AppError(
        "invalid",
        `from_char ${options.fromChar} is past the end: this conversation has ${total} characters (from_char 0–${total}).`,
      );
    }
  }
  const startChar = options.fromChar ?? characterCount(text.slice(0, start));
  // Items: from the start to the first message start after it, then message to message.
  const bounds = [start];
  for (const m of starts) if (m.index > start) bounds.push(m.index);
  bounds.push(text.length);
  const count = start < text.length ? bounds.length - 1 : 0;
  return {
    count,
    itemLength: (i) => bounds[i + 1] - bounds[i],
    page: (shown, part) => {
      const end = part === undefined ? bounds[shown] : cutAt(text, bounds[shown] + part);
      const slice = text.slice(start, end);
      const endChar = startChar + characterCount(slice);
      const view: MessageTail = options.fromChar === undefined
        ? { ...tail, text: slice }
        : { text: slice, total: tail.total, shown: 0, omitted: 0, preambleOmitted: false };
      return render({
        tail: view,
        comments: options.fromChar === undefined,
        page: {
          from_char: startChar,
          next_from_char: end < text.length ? endChar : null,
          conversation_chars: total,
          has_more: end < text.length,
          cut_inside_message: part !== undefined,
        },
      });
    },
  };
}

/** What a page says about where it lies and how to read on, for the text and `notes` alike. */
export function pageNotes(key: string, page: ConversationPage): string[] {
  if (!page.has_more) {
    return page.from_char > 0
      ? [
        `Conversation characters ${page.from_char}–${page.conversation_chars} of ${page.conversation_chars}: the end.`,
      ]
      : [];
  }
  const inside = page.cut_inside_message
    ? " This page ends inside a message longer than a page; the message goes on in the next."
    : "";
  return [
    `Conversation characters ${page.from_char}–${page.next_from_char} of ${page.conversation_chars}, cut to fit RESULT_MAX_TOKENS.${inside} More: call handoff_load with key "${key}" and from_char ${page.next_from_char}.`,
  ];
}
