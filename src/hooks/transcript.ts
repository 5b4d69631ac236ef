/**
 * A Claude Code transcript (JSONL: one entry a line, user and assistant turns with their tool
 * calls and results) → the messages of a handoff conversation. User and assistant text is kept
 * verbatim; tool calls and results become short fenced summaries; images a one-line note;
 * thinking, meta entries (command caveats, compaction summaries), subagent side chains, the
 * client's command and hook markup and its synthetic replies are left out
 * (`transcript_markup.ts`). Secrets are masked in everything kept; broken UTF-16 becomes U+FFFD.
 */

import { utf8Bytes } from "../kit/text.ts";
import { maskSecrets } from "./mask.ts";
import { imageNote, toolCallSummary, toolResultSummary } from "./tool_summary.ts";
import { isSyntheticAssistant, userTextOf } from "./transcript_markup.ts";
import { findMessages, ROLE_NAMES } from "../handoff/store_messages.ts";

/** One message of the conversation: who speaks and the markdown body. */
export interface TranscriptMessage {
  role: "user" | "assistant";
  body: string;
}

/** The conversion of a whole transcript. */
export interface Conversion {
  /** The newest messages: all of them, or those a save can hold (`keepBytes`). */
  messages: TranscriptMessage[];
  /** Older messages left out while reading, and their bytes (with cut parts of kept ones). */
  dropped: { messages: number; bytes: number };
  /** Lines that were not a JSON object (a line cut mid-write, `null`, a number) or too long. */
  skippedLines: number;
  /** The first user prompt, for a title. */
  firstPrompt: string | undefined;
}

type Block = Record<string, unknown>;
type Role = "user" | "assistant";
interface Sized<T> {
  item: T;
  bytes: number;
}

/**
 * A queue that keeps only its newest items once they hold `keepBytes`: oldest ones go while the
 * rest still hold that much, so whatever fits `keepBytes` is kept whole.
 */
class NewestWithin<T> {
  /** Items from `#head` on; those before it are let go (`undefined`), so memory follows them. */
  #items: (Sized<T> | undefined)[] = [];
  #head = 0;
  bytes = 0;
  droppedItems = 0;
  droppedBytes = 0;
  constructor(readonly keepBytes: number) {}

  push(item: T, bytes: number): void {
    this.#items.push({ item, bytes });
    this.bytes += bytes;
    while (
      this.#items.length - this.#head > 1 &&
      this.bytes - this.#items[this.#head]!.bytes >= this.keepBytes
    ) {
      const gone = this.#items[this.#head]!;
      this.#items[this.#head++] = undefined;
      this.bytes -= gone.bytes;
      this.droppedItems++;
      this.droppedBytes += gone.bytes;
    }
    // Compacted now and then: shifting one at a time is quadratic on a long session.
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
  }

  get items(): T[] {
    return this.#items.slice(this.#head).map((s) => s!.item);
  }
}

/**
 * Converts a transcript line by line, so a transcript is never held whole: with `keepBytes` (the
 * handoff limit) it keeps only the newest messages that a save could hold, and of a message
 * larger than that only its newest parts.
 */
export class TranscriptConverter {
  #messages: NewestWithin<TranscriptMessage>;
  #current: { role: Role; parts: NewestWithin<string> } | undefined;
  #cutBytes = 0;
  #toolNames = new Map<string, string>();
  #skipped = 0;
  #firstPrompt: string | undefined;
  readonly #mask: (text: string) => string;

  /** `exact` are secret values to mask besides patterns; `keepBytes` bounds what is kept. */
  constructor(readonly exact: readonly string[] = [], readonly keepBytes = Infinity) {
    this.#messages = new NewestWithin(keepBytes);
    this.#mask = (text) => maskSecrets(text, exact);
  }

  /** Counts a line that was not read (longer than the line limit). */
  skipLine(): void {
    this.#skipped++;
  }

  /** Takes one JSONL line; a line that is not a JSON object is skipped and counted. */
  addLine(line: string): void {
    if (line.trim() === "") return;
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      entry = undefined;
    }
    if (typeof entry !== "object" || entry === null || Array.isArray(entry)) {
      this.#skipped++;
      return;
    }
    const e = entry as Record<string, unknown>;
    if (!isConversationEntry(e)) return;
    if (e.type === "assistant" && isSyntheticAssistant(e)) return;
    for (const block of blocksOf(e.message as { content?: unknown })) this.#addBlock(e, block);
  }

  #addBlock(entry: Record<string, unknown>, block: Block): void {
    if (entry.type === "assistant") {
      if (block.type === "text") this.#push("assistant", String(block.text ?? ""));
      else if (block.type === "tool_use") {
        const name = String(block.name ?? "tool");
        this.#toolNames.set(String(block.id), name);
        this.#push("assistant", toolCallSummary(name, block.input, this.#mask));
      }
    } else if (block.type === "tool_result") {
      // A tool's output comes back as a user entry, but it is part of the assistant's turn.
      const name = this.#toolNames.get(String(block.tool_use_id)) ?? "tool";
      this.#push(
        "assistant",
        toolResultSummary(name, block.content, block.is_error === true, this.#mask),
      );
    } else if (block.type === "text") this.#push("user", userTextOf(String(block.text ?? "")));
    else if (block.type === "image") this.#push("user", imageNote(block));
  }

  #push(role: Role, part: string): void {
    if (part.trim() === "") return;
    if (this.#current?.role !== role) {
      this.#finishCurrent();
      // A part never exceeds the line it came from; the message keeps only its newest parts.
      this.#current = { role, parts: new NewestWithin(this.keepBytes) };
    }
    this.#current!.parts.push(part, byteLength(part) + 2);
  }

  #finishCurrent(): void {
    const current = this.#current;
    if (!current) return;
    this.#current = undefined;
    this.#cutBytes += current.parts.droppedBytes;
    const message = finish(current.role, current.parts.items, this.exact);
    if (message.role === "user" && this.#firstPrompt === undefined) {
      this.#firstPrompt = message.body.split("\n").find((l) => l.trim());
    }
    this.#messages.push(message, byteLength(renderMessage(message)));
  }

  /** The conversion of every line taken. */
  finish(): Conversion {
    this.#finishCurrent();
    return {
      messages: this.#messages.items,
      dropped: {
        messages: this.#messages.droppedItems,
        bytes: this.#messages.droppedBytes + this.#cutBytes,
      },
      skippedLines: this.#skipped,
      firstPrompt: this.#firstPrompt,
    };
  }
}

/** Converts the JSONL text of a transcript, keeping every message (tests, small inputs). */
export function convertTranscript(jsonl: string, exact: readonly string[] = []): Conversion {
  const converter = new TranscriptConverter(exact);
  for (const line of jsonl.split("\n")) converter.addLine(line);
  return converter.finish();
}

/** A message's content as blocks: a string is one text block; anything not an object is left. */
function blocksOf(message: { content?: unknown }): Block[] {
  if (typeof message.content === "string") return [{ type: "text", text: message.content }];
  if (!Array.isArray(message.content)) return [];
  return message.content.filter((b): b is Block => typeof b === "object" && b !== null);
}

/** A user or assistant entry of the main conversation that a person or the model wrote. */
function isConversationEntry(entry: Record<string, unknown>): boolean {
  if (entry.type !== "user" && entry.type !== "assistant") return false;
  if (entry.isSidechain === true || entry.isMeta === true) return false;
  if (entry.isCompactSummary === true || entry.isVisibleInTranscriptOnly === true) return false;
  return typeof entry.message === "object" && entry.message !== null &&
    !Array.isArray(entry.message);
}

/**
 * The message's parts joined, broken UTF-16 replaced (a tool output cut at a UTF-16 index leaves
 * half a pair, which no store accepts), masked, with lines that would start a message escaped.
 */
function finish(role: Role, parts: readonly string[], exact: readonly string[]): TranscriptMessage {
  return { role, body: escapeRoleLines(maskSecrets(parts.join("\n\n").toWellFormed(), exact)) };
}

/**
 * A line start that `findMessages` could take for a message (looser than it: any heading, any
 * bold start, any role name then a colon).
 */
const MAY_START_MESSAGE = new RegExp(
  `(?:^|[\\r\\n])(?: {0,3}#|\\*\\*|(?:${ROLE_NAMES.join("|")})[ \\t]*:)`,
  "i",
);

/** Scratch space for counting UTF-8 bytes natively. */
const SCRATCH = new Uint8Array(64 * 1024);
const ENCODER = new TextEncoder();

/**
 * The UTF-8 bytes of `text` (as `utf8Bytes`; broken UTF-16 counts as U+FFFD, as it is saved),
 * counted by the native encoder in slices: a long session passes each message through here.
 */
export function byteLength(text: string): number {
  if (text.length < 4096) return utf8Bytes(text);
  let bytes = 0;
  for (let at = 0; at < text.length;) {
    let end = Math.min(text.length, at + 16 * 1024);
    // Never between the halves of a pair: each half alone would count as U+FFFD.
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
    const { read, written } = ENCODER.encodeInto(text.slice(at, end), SCRATCH);
    at += read;
    bytes += written;
  }
  return bytes;
}

/**
 * `body` with a backslash before every line the handoff store would read as the start of a new
 * message (`## User`, `User:` …), so a quoted dialogue stays inside its message.
 */
export function escapeRoleLines(body: string): string {
  // Most bodies hold no line that could start a message: skip the line-by-line parse for them.
  if (!MAY_START_MESSAGE.test(body)) return body;
  const starts = findMessages(body);
  let out = body;
  for (const { index } of starts.toReversed()) out = `${out.slice(0, index)}\\${out.slice(index)}`;
  return out;
}

/** The conversation text of `messages`: `## User` / `## Assistant` sections. */
export function renderMessages(messages: readonly TranscriptMessage[]): string {
  return messages.map(renderMessage).join("");
}

/** One message as a section, ending with a blank line. */
export function renderMessage(m: TranscriptMessage): string {
  return `## ${m.role === "user" ? "User" : "Assistant"}\n\n${m.body.trimEnd()}\n\n`;
}
