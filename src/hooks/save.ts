/**
 * Saves a Claude Code session as handoff `claude-code-<session_id>`, through the handoff tools.
 * A second save of the same session appends only what is new, and a save with nothing new writes
 * nothing, so a hook that fires twice (PreCompact, then SessionEnd) changes nothing the second
 * time. A session larger than the handoff limit is saved as its newest messages, and replaced
 * whole when it grows.
 */

import { utf8Bytes } from "../kit/text.ts";
import type { HookConnection, ToolOutcome } from "./connection.ts";
import { fitConversation } from "./fit.ts";
import { type ProjectId, projectTag } from "./project_id.ts";
import { TranscriptConverter } from "./transcript.ts";
import type { LineSink } from "./transcript_file.ts";

/** The `from_ai` of every saved session. */
export const FROM_AI = "Claude Code";

/** What a save did. */
export interface SaveOutcome {
  key: string;
  /** `nothing`: the session holds no conversation turn (only commands, say), so no handoff. */
  action: "saved" | "appended" | "unchanged" | "replaced" | "nothing";
  messages: number;
  bytes: number;
  droppedMessages: number;
  /** Lines that were not a JSON object, or longer than the line limit. */
  skippedLines: number;
}

/** Where a transcript's lines come from: a file read as a stream, or a text (tests). */
export interface TranscriptSource {
  read(sink: LineSink): Promise<void>;
}

/** The handoff key of a session; throws on an id that is not a Claude Code session id. */
export function sessionKey(sessionId: string): string {
  if (!/^[A-Za-z0-9_-]{1,80}$/.test(sessionId)) {
    throw new Error(
      "session_id must be 1–80 characters of A-Z a-z 0-9 _ - (Claude Code's session ids are UUIDs)",
    );
  }
  return `claude-code-${sessionId}`;
}

/**
 * Converts the transcript and saves or appends it as the session's handoff. It is read line by
 * line, keeping only the newest messages the handoff limit can hold, so a long session costs
 * memory in proportion to that limit and its longest line, not to its size.
 */
export async function saveSession(
  conn: HookConnection,
  input: { sessionId: string; transcript: TranscriptSource; project: ProjectId },
): Promise<SaveOutcome> {
  const key = sessionKey(input.sessionId);
  const limits = await handoffLimits(conn);
  const converter = new TranscriptConverter(conn.secrets, limits.conversation_max_bytes);
  await input.transcript.read((line) =>
    line === undefined ? converter.skipLine() : converter.addLine(line)
  );
  const { messages, firstPrompt, dropped, skippedLines } = converter.finish();
  const fitted = fitConversation(messages, limits.conversation_max_bytes, dropped);
  const outcome = (action: SaveOutcome["action"]): SaveOutcome => ({
    key,
    action,
    messages: messages.length + dropped.messages,
    bytes: utf8Bytes(fitted.text),
    droppedMessages: fitted.droppedMessages,
    skippedLines,
  });
  if (messages.length === 0) return outcome("nothing");
  const saved = await conn.call("handoff_load", { key });
  const existing = saved.isError ? undefined : String(saved.structured.conversation ?? "");
  if (existing === fitted.text) return outcome("unchanged");
  if (existing !== undefined && fitted.droppedMessages === 0 && fitted.text.startsWith(existing)) {
    check(await conn.call("handoff_append", { key, chunk: fitted.text.slice(existing.length) }));
    // Two hooks of one session at once (PreCompact, then a quick exit) can both append the same
    // part; the one that finds the text doubled saves it whole, so it ends up right.
    const after = await conn.call("handoff_load", { key });
    if (after.isError || after.structured.conversation === fitted.text) return outcome("appended");
  }
  const title = `Claude Code: ${firstPrompt ?? input.sessionId}`;
  check(
    await conn.call("handoff_save", {
      key,
      title: cutChars(title.replace(/\s+/g, " "), limits.title_max_chars),
      summary: summaryOf(input, fitted.droppedMessages),
      conversation: fitted.text,
      from_ai: FROM_AI,
      from_project: input.project.id,
      tags: [projectTag(input.project.id, limits.tag_max_chars), "claude-code"],
    }),
  );
  return outcome(existing === undefined ? "saved" : "replaced");
}

/**
 * The summary: what this handoff is, since a hook cannot say what was decided. It holds no count,
 * as appends do not rewrite it; the record's message count stays true.
 */
function summaryOf(input: { sessionId: string; project: ProjectId }, dropped: number): string {
  return `Claude Code session ${input.sessionId} in project ${input.project.id}, saved by its ` +
    "hooks (PreCompact / SessionEnd). Tool calls and results are summaries; secrets are masked." +
    (dropped > 0 ? ` Its ${dropped} oldest messages did not fit the handoff limit.` : "");
}

interface Limits {
  conversation_max_bytes: number;
  title_max_chars: number;
  tag_max_chars: number;
}

async function handoffLimits(conn: HookConnection): Promise<Limits> {
  const stats = check(await conn.call("handoff_stats", {}));
  return stats.structured.limits as unknown as Limits;
}

/** The outcome, or an error carrying the tool's message. */
function check(outcome: ToolOutcome): ToolOutcome {
  if (outcome.isError) throw new Error(outcome.text);
  return outcome;
}

function cutChars(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join("")}…`;
}
