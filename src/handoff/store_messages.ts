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
/** A line that may open a code fence: three or more backticks or tildes. */
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
/** A line that may close one: the fence alone, then only spaces. */
const CLOSING = /^ {0,3}(`{3,}|~{3,})[ \t]*$/;

/** Where one message starts in the text, and who speaks. */
export interface MessageStart {
  /** UTF-16 index of the message's first line. */
  index: number;
  role: string;
}

/** Each line of `text` (without its end: LF, CRLF or a lone CR) and where it starts. */
function splitLines(text: string): { start: number; line: string }[] {
  const lines: { start: number; line: string }[] = [];
  const breaks = /\r\n|\r|\n/g;
  let start = 0;
  for (let m = breaks.exec(text); m !== null; m = breaks.exec(text)) {
    lines.push({ start, line: text.slice(start, m.index) });
    start = m.index + m[0].length;
  }
  lines.push({ start, line: text.slice(start) });
  return lines;
}

/**
 * The message starts of `text`, in order. A fence that is never closed is not a fence: in a
 * transcript it is an answer cut off mid-code, and the messages after it still count.
 */
export function findMessages(text: string): MessageStart[] {
  const lines = splitLines(text);
  // longest[c][i]: the longest closing fence of character c on a line after line i.
  const longest = { "`": new Int32Array(lines.length), "~": new Int32Array(lines.length) };
  for (let i = lines.length - 2; i >= 0; i--) {
    longest["`"][i] = longest["`"][i + 1];
    longest["~"][i] = longest["~"][i + 1];
    const closing = lines[i + 1].line.match(CLOSING)?.[1];
    if (closing) {
      const c = closing[0] as "`" | "~";
      longest[c][i] = Math.max(longest[c][i], closing.length);
    }
  }
  const starts: MessageStart[] = [];
  let fence: { char: "`" | "~"; length: number } | null = null;
  for (let i = 0; i < lines.length; i++) {
    const { start, line } = lines[i];
    if (fence) {
      const closing = line.match(CLOSING)?.[1];
      if (closing && closing[0] === fence.char && closing.length >= fence.length) fence = null;
      continue;
    }
    const opener = line.match(FENCE)?.[1];
    if (opener) {
      const char = opener[0] as "`" | "~";
      if (longest[char][i] >= opener.length) fence = { char, length: opener.length };
      continue;
    }
    const role = line.match(HEADING)?.[1] ?? line.match(BOLD)?.[1] ?? line.match(PLAIN)?.[1];
    if (role) starts.push({ index: start, role: role.toLowerCase() });
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
  return lastMessagesOf(text, findMessages(text), max);
}

/** `lastMessages` with the message starts of `text` already found (they cost a scan of it). */
export function lastMessagesOf(text: string, starts: MessageStart[], max: number): MessageTail {
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
