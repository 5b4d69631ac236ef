/**
 * Tool calls and results as short fenced summaries: a transcript's tool output (whole files,
 * test logs) would fill a handoff, while the next session needs to know what was run and how it
 * went. Images become a one-line note with their type and size.
 */

import { fenceFor } from "../kit/untrusted.ts";

/** Longest tool input shown, in characters. */
export const TOOL_INPUT_MAX_CHARS = 600;
/** Lines of a tool result shown. */
export const TOOL_RESULT_MAX_LINES = 12;
/** Longest line of a tool result shown, in characters. */
export const TOOL_LINE_MAX_CHARS = 200;

/** A fenced block with an info line, its fence longer than any backtick run inside. */
function fenced(info: string, body: string): string {
  const fence = fenceFor(body);
  return `${fence}${info}\n${body}\n${fence}`;
}

/**
 * `text` cut to `max` characters (code points), saying how many were left out. Counted in place,
 * not by spreading the text into an array: tool inputs are often whole files.
 */
function cut(text: string, max: number): string {
  if (text.length <= max) return text; // never more code points than UTF-16 units
  let chars = 0;
  let end = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // A low surrogate right after a high one is the second half of a pair (a high one never is).
    if (c >= 0xdc00 && c <= 0xdfff && i > 0 && isHighSurrogate(text.charCodeAt(i - 1))) continue;
    if (chars === max) end = i;
    chars++;
  }
  return chars <= max ? text : `${text.slice(0, end)}… (${chars - max} more characters)`;
}

function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

/** Masks secrets in a text before it is cut, so no part of a key survives the cut. */
export type Mask = (text: string) => string;

/** A tool call: its name and input as JSON, masked, then cut. */
export function toolCallSummary(name: string, input: unknown, mask: Mask): string {
  const json = input === undefined ? "" : JSON.stringify(input) ?? "";
  return fenced(`tool call: ${oneLine(name)}`, cut(mask(json), TOOL_INPUT_MAX_CHARS));
}

/** A tool result: ok or error, its size, its first lines, and notes for images inside. */
export function toolResultSummary(
  name: string,
  content: unknown,
  isError: boolean,
  mask: Mask,
): string {
  const parts = Array.isArray(content) ? content : [{ type: "text", text: content ?? "" }];
  const texts: string[] = [];
  const notes: string[] = [];
  for (const part of parts) {
    if (typeof part !== "object" || part === null) continue;
    const p = part as Record<string, unknown>;
    if (p.type === "image") notes.push(imageNote(p));
    else if (typeof p.text === "string") texts.push(p.text);
    else if (typeof p.content === "string") texts.push(p.content);
  }
  const lines = mask(texts.join("\n")).replace(/\s+$/, "").split("\n");
  const empty = lines.length === 1 && lines[0] === "";
  const shown = empty
    ? []
    : lines.slice(0, TOOL_RESULT_MAX_LINES).map((l) => cut(l, TOOL_LINE_MAX_CHARS));
  if (lines.length > TOOL_RESULT_MAX_LINES) {
    shown.push(`… ${lines.length - TOOL_RESULT_MAX_LINES} more lines`);
  }
  const size = empty ? "no output" : `${lines.length} line${lines.length === 1 ? "" : "s"}`;
  const info = `tool result: ${oneLine(name)} · ${isError ? "error" : "ok"} · ${size}`;
  return fenced(info, [...shown, ...notes].join("\n"));
}

/** `[image: image/png, 12 KB]` for an image block (base64 sizes are 4/3 of the bytes). */
export function imageNote(block: Record<string, unknown>): string {
  const source = (block.source ?? {}) as Record<string, unknown>;
  const type = typeof source.media_type === "string" ? source.media_type : "image";
  const data = typeof source.data === "string" ? source.data : "";
  const kb = Math.max(1, Math.round((data.length * 3) / 4 / 1024));
  return data === "" ? `[image: ${type}]` : `[image: ${type}, ${kb} KB]`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
