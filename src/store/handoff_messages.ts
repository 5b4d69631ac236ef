/**
 * Messages inside a saved conversation: `## User` / `## Assistant` sections, and the looser
 * `**User:**`, `User:`, `Human:` forms other tools write. Lines inside code fences never start a
 * message, so a quoted transcript in a code block is not counted twice.
 */

/** Speaker names recognised at the start of a message (case-insensitive). */
export const ROLE_NAMES = [
  "user",
  "human",
  "me",
  "you",
  "assistant",
  "ai",
  "claude",
  "chatgpt",
  "gpt",
  "gemini",
  "copilot",
  "codex",
  "cursor",
  "model",
  "bot",
  "system",
] as const;

const ROLE = `(${ROLE_NAMES.join("|")})`;
/** `## User`, `### Assistant:`, `## **Claude**` (optionally with a parenthesised note). */
const HEADING = new RegExp(
  `^ {0,3}#{1,6}[ \\t]+(?:\\*\\*)?${ROLE}(?:\\*\\*)?[ \\t]*:?[ \\t]*(?:\\([^)\\n]*\\))?[ \\t]*$`,
  "i",
);
/** `**User:** text` or `**User**: text`. */
const BOLD = new RegExp(`^\\*\\*${ROLE}[ \\t]*(?::\\*\\*|\\*\\*[ \\t]*:)`, "i");
/** `User: text`, `Human: text` at the very start of a line. */
const PLAIN = new RegExp(`^${ROLE}[ \\t]*:`, "i");
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** Where one message starts in the text, and who speaks. */
export interface MessageStart {
  /** UTF-16 index of the message's first line. */
  index: number;
  role: string;
}

/** The message starts of `text`, in order. */
export function findMessages(text: string): MessageStart[] {
  const starts: MessageStart[] = [];
  let fence: { char: string; length: number } | null = null;
  let at = 0;
  while (at <= text.length) {
    const end = text.indexOf("\n", at);
    const lineEnd = end === -1 ? text.length : end;
    const line = text.slice(at, lineEnd).replace(/\r$/, "");
    const opener = line.match(FENCE);
    if (fence) {
      const closes = opener && opener[1][0] === fence.char && opener[1].length >= fence.length &&
        line.trim().replace(/^[`~]+/, "") === "";
      if (closes) fence = null;
    } else if (opener) {
      fence = { char: opener[1][0], length: opener[1].length };
    } else {
      const role = line.match(HEADING)?.[1] ?? line.match(BOLD)?.[1] ?? line.match(PLAIN)?.[1];
      if (role) starts.push({ index: at, role: role.toLowerCase() });
    }
    if (end === -1) break;
    at = end + 1;
  }
  return starts;
}

/** How many messages `text` holds: its message starts, or 1 for text without any. */
export function countMessages(text: string): number {
  const n = findMessages(text).length;
  return n > 0 ? n : text.length > 0 ? 1 : 0;
}

/** The tail of a conversation kept by `max_messages`. */
export interface MessageTail {
  /** The kept text, a verbatim slice of the conversation. */
  text: string;
  total: number;
  shown: number;
  /** Messages left out before the kept ones. */
  omitted: number;
  /** True when text before the first message (a preamble) was left out too. */
  preambleOmitted: boolean;
}

/** The last `max` messages of `text`, cut at a message start; the whole text when it has fewer. */
export function lastMessages(text: string, max: number): MessageTail {
  const starts = findMessages(text);
  const total = starts.length > 0 ? starts.length : text.length > 0 ? 1 : 0;
  if (total <= max) {
    return { text, total, shown: total, omitted: 0, preambleOmitted: false };
  }
  const first = starts[starts.length - max];
  return {
    text: text.slice(first.index),
    total,
    shown: max,
    omitted: total - max,
    preambleOmitted: starts[0].index > 0 && text.slice(0, starts[0].index).trim() !== "",
  };
}
