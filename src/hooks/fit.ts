/**
 * A conversation that fits the handoff limit: the newest messages that fit, after a note saying
 * how many older ones were dropped. A newest message larger than the limit on its own keeps its
 * end, with a note inside it.
 */

import { utf8Bytes } from "../kit/text.ts";
import { renderMessage, renderMessages, type TranscriptMessage } from "./transcript.ts";

/** The text to save and what was left out of it. */
export interface Fitted {
  text: string;
  /** Messages dropped from the start. */
  droppedMessages: number;
  /** UTF-8 bytes of the dropped messages (and of a cut message's dropped part). */
  droppedBytes: number;
}

/** Room kept for the note: its longest form, with ten-digit numbers, is under 300 bytes. */
const NOTE_BYTES = 400;

/**
 * `messages` rendered whole when they fit `maxBytes`, else their newest part with a note.
 * `before` are what the reader already left out ahead of them (`Conversion.dropped`): the note
 * counts them, and the text is never called whole when they are not nothing.
 */
export function fitConversation(
  messages: readonly TranscriptMessage[],
  maxBytes: number,
  before: { messages: number; bytes: number } = { messages: 0, bytes: 0 },
): Fitted {
  const whole = renderMessages(messages);
  const wholeBytes = utf8Bytes(whole);
  const cutBefore = before.messages > 0 || before.bytes > 0;
  if (wholeBytes <= maxBytes && !cutBefore) {
    return { text: whole, droppedMessages: 0, droppedBytes: 0 };
  }
  const budget = maxBytes - NOTE_BYTES;
  const kept: string[] = [];
  let used = 0;
  let i = messages.length - 1;
  for (; i >= 0; i--) {
    const section = renderMessage(messages[i]);
    const bytes = utf8Bytes(section);
    if (used + bytes > budget) break;
    kept.unshift(section);
    used += bytes;
  }
  if (kept.length === 0 && messages.length > 0) {
    // The newest message alone passes the limit: keep its end.
    const last = messages[messages.length - 1];
    const tail = tailWithin(last.body, budget - 100);
    kept.push(renderMessage({ role: last.role, body: `[… start of this message cut]\n${tail}` }));
    i = messages.length - 2;
  }
  const droppedMessages = i + 1 + before.messages;
  const droppedBytes = wholeBytes - kept.reduce((n, s) => n + utf8Bytes(s), 0) + before.bytes;
  const note = `[handoff-mcp: this session is larger than the handoff limit (${maxBytes} bytes): ` +
    `its ${droppedMessages} oldest message(s) were left out (${droppedBytes} bytes); ` +
    `the newest are below.]\n\n`;
  return { text: note + kept.join(""), droppedMessages, droppedBytes };
}

/** The longest end of `text` within `maxBytes` UTF-8 bytes, never splitting a character. */
function tailWithin(text: string, maxBytes: number): string {
  const chars = [...text];
  let bytes = 0;
  let start = chars.length;
  while (start > 0) {
    const b = utf8Bytes(chars[start - 1]);
    if (bytes + b > maxBytes) break;
    bytes += b;
    start--;
  }
  return chars.slice(start).join("");
}
