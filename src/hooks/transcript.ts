/**
 * A Claude Code transcript (JSONL: one entry a line, user and assistant turns with their tool
 * calls and results) → the messages of a handoff conversation. User and assistant text is kept
 * verbatim; tool calls and results become short fenced summaries; images a one-line note;
 * thinking, meta entries (command caveats, compaction summaries) and subagent side chains are
 * left out. Secrets are masked in everything kept.
 */

import { maskSecrets } from "./mask.ts";
import { imageNote, toolCallSummary, toolResultSummary } from "./tool_summary.ts";
import { findMessages } from "../handoff/store_messages.ts";

/** One message of the conversation: who speaks and the markdown body. */
export interface TranscriptMessage {
  role: "user" | "assistant";
  body: string;
}

/** The conversion of a whole transcript. */
export interface Conversion {
  messages: TranscriptMessage[];
  /** Lines that were not JSON (a transcript cut mid-write ends with one). */
  skippedLines: number;
  /** The first user prompt, for a title. */
  firstPrompt: string | undefined;
}

type Block = Record<string, unknown>;

/** Converts the JSONL text of a transcript; `exact` are secret values to mask besides patterns. */
export function convertTranscript(jsonl: string, exact: readonly string[] = []): Conversion {
  const messages: TranscriptMessage[] = [];
  const toolNames = new Map<string, string>();
  const mask = (text: string) => maskSecrets(text, exact);
  let skippedLines = 0;
  let current: { role: "user" | "assistant"; parts: string[] } | undefined;
  const push = (role: "user" | "assistant", part: string) => {
    if (part.trim() === "") return;
    if (current?.role !== role) {
      if (current) messages.push(finish(current, exact));
      current = { role, parts: [] };
    }
    current.parts.push(part);
  };
  for (const line of jsonl.split("\n")) {
    if (line.trim() === "") continue;
    let entry: Record<string, unknown>;
    try {
      entry = JSON.parse(line);
    } catch {
      skippedLines++;
      continue;
    }
    if (!isConversationEntry(entry)) continue;
    const message = entry.message as { content?: unknown };
    const blocks: Block[] = typeof message.content === "string"
      ? [{ type: "text", text: message.content }]
      : Array.isArray(message.content)
      ? message.content.filter((b): b is Block => typeof b === "object" && b !== null)
      : [];
    for (const block of blocks) {
      if (entry.type === "assistant") {
        if (block.type === "text") push("assistant", String(block.text ?? ""));
        else if (block.type === "tool_use") {
          toolNames.set(String(block.id), String(block.name ?? "tool"));
          push("assistant", toolCallSummary(String(block.name ?? "tool"), block.input, mask));
        }
      } else if (block.type === "tool_result") {
        // A tool's output comes back as a user entry, but it is part of the assistant's turn.
        const name = toolNames.get(String(block.tool_use_id)) ?? "tool";
        push("assistant", toolResultSummary(name, block.content, block.is_error === true, mask));
      } else if (block.type === "text") push("user", String(block.text ?? ""));
      else if (block.type === "image") push("user", imageNote(block));
    }
  }
  if (current) messages.push(finish(current, exact));
  const firstUser = messages.find((m) => m.role === "user")?.body;
  return { messages, skippedLines, firstPrompt: firstUser?.split("\n").find((l) => l.trim()) };
}

/** A user or assistant entry of the main conversation that a person or the model wrote. */
function isConversationEntry(entry: Record<string, unknown>): boolean {
  if (entry.type !== "user" && entry.type !== "assistant") return false;
  if (entry.isSidechain === true || entry.isMeta === true) return false;
  if (entry.isCompactSummary === true || entry.isVisibleInTranscriptOnly === true) return false;
  return typeof entry.message === "object" && entry.message !== null;
}

/** The message's parts joined, masked, with lines that would start a message escaped. */
function finish(
  current: { role: "user" | "assistant"; parts: string[] },
  exact: readonly string[],
): TranscriptMessage {
  return {
    role: current.role,
    body: escapeRoleLines(maskSecrets(current.parts.join("\n\n"), exact)),
  };
}

/**
 * `body` with a backslash before every line the handoff store would read as the start of a new
 * message (`## User`, `User:` …), so a quoted dialogue stays inside its message.
 */
export function escapeRoleLines(body: string): string {
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
