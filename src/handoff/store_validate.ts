/** Checks of handoff input before anything is written, and the cutting and naming of text. */

import type { HandoffLimits } from "./settings.ts";
import { AppError, invalid } from "../kit/kv.ts";
import { HANDOFF_STATUSES, type HandoffStatus, RESERVED_KEYS } from "./store_schema.ts";

/** UTF-8 bytes of `text`. */
export function utf8Bytes(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

const KEY_PATTERN = /^[A-Za-z0-9_-]+$/;

const TAG_PATTERN = /^[a-z0-9_:-]+$/;

/** Checks a handoff key: 1–max characters of `[A-Za-z0-9_-]`, not a reserved word. */
export function validateKey(key: unknown, limits: HandoffLimits, what: string): string {
  const allowed = `1–${limits.keyMaxChars} characters of A-Z a-z 0-9 _ -`;
  if (typeof key !== "string") invalid(`${what}: key must be a string of ${allowed}`);
  if (key.length === 0 || key.length > limits.keyMaxChars) {
    invalid(`${what}: key must be ${allowed}, got ${key.length} characters`);
  }
  if (!KEY_PATTERN.test(key)) {
    invalid(`${what}: key "${clip(key)}" has characters outside A-Z a-z 0-9 _ - (${allowed})`);
  }
  if ((RESERVED_KEYS as readonly string[]).includes(key.toLowerCase())) {
    invalid(
      `${what}: key "${key}" is reserved (reserved: ${RESERVED_KEYS.join(", ")}); choose another`,
    );
  }
  return key;
}

/** Lowercases, checks and de-duplicates tags. */
export function normalizeTags(tags: unknown, limits: HandoffLimits, what: string): string[] {
  if (tags === undefined || tags === null) return [];
  if (!Array.isArray(tags)) invalid(`${what}: tags must be a list of strings`);
  const out: string[] = [];
  for (const raw of tags) {
    if (typeof raw !== "string") invalid(`${what}: every tag must be a string`);
    const tag = raw.trim().toLowerCase();
    if (tag.length === 0 || tag.length > limits.tagMaxChars || !TAG_PATTERN.test(tag)) {
      invalid(
        `${what}: tag "${
          clip(raw)
        }" is not allowed: tags are 1–${limits.tagMaxChars} characters of a-z 0-9 _ : - (uppercase is lowercased)`,
      );
    }
    if (!out.includes(tag)) out.push(tag);
  }
  if (out.length > limits.tagsMax) {
    invalid(`${what}: ${out.length} tags given; at most ${limits.tagsMax} are allowed`);
  }
  return out;
}

/** A trimmed single line of at most `max` characters, or `null` when absent or blank. */
export function optionalLine(
  value: unknown,
  field: string,
  max: number,
  what: string,
): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "string") invalid(`${what}: ${field} must be a string`);
  const text = value.trim();
  if (text === "") return null;
  if (/[\r\n\u2028\u2029]/.test(text)) {
    invalid(`${what}: ${field} must be a single line (no line breaks), at most ${max} characters`);
  }
  if (/\p{Cc}/u.test(text.replaceAll("\t", " "))) {
    invalid(`${what}: ${field} must not contain control characters`);
  }
  const length = [...text].length;
  if (length > max) {
    throw new AppError(
      "too_large",
      `${what}: ${field} is ${length} characters; at most ${max} are allowed`,
    );
  }
  return text;
}

/** Checks a block of text (summary, comment, chunk): a string, well-formed, under a byte cap. */
export function checkText(
  value: unknown,
  field: string,
  maxBytes: number,
  setting: string,
  what: string,
): string {
  if (typeof value !== "string") invalid(`${what}: ${field} must be a string`);
  if (!value.isWellFormed()) {
    invalid(`${what}: ${field} contains a lone UTF-16 surrogate; send valid Unicode text`);
  }
  const bytes = utf8Bytes(value);
  if (bytes > maxBytes) {
    throw new AppError(
      "too_large",
      `${what}: ${field} is ${bytes} bytes (UTF-8); at most ${maxBytes} bytes (${setting}) are allowed`,
    );
  }
  return value;
}

/** Checks a status, `active` when absent. */
export function checkStatus(value: unknown, what: string): HandoffStatus {
  if (value === undefined || value === null) return "active";
  if (!(HANDOFF_STATUSES as readonly unknown[]).includes(value)) {
    invalid(`${what}: status must be one of ${HANDOFF_STATUSES.join(", ")}, got "${value}"`);
  }
  return value as HandoffStatus;
}

/** `text` cut to `max` UTF-16 units with "…" (never inside a surrogate pair), for messages. */
export function clip(text: string, max = 40): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  return `${/[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut}…`;
}

/** Cuts `text` to at most `max` characters, at a word break when one is near, with "…". */
export function truncateChars(text: string, max: number): string {
  const chars = [...text];
  if (chars.length <= max) return text;
  let cut = chars.slice(0, max - 1).join("");
  const space = cut.lastIndexOf(" ");
  if (space > cut.length - 20 && space > 0) cut = cut.slice(0, space);
  return `${cut.trimEnd()}…`;
}

/** Cuts `text` to at most `maxBytes` UTF-8 bytes at a character boundary, with "…". */
export function truncateBytes(text: string, maxBytes: number): string {
  if (utf8Bytes(text) <= maxBytes) return text;
  let bytes = 3; // the ellipsis
  let out = "";
  for (const char of text) {
    const size = utf8Bytes(char);
    if (bytes + size > maxBytes) break;
    out += char;
    bytes += size;
  }
  return `${out}…`;
}

/** A title made from the first line of the summary. */
export function titleFromSummary(summary: string, limits: HandoffLimits): string {
  const line = summary.split(/\r?\n/)
    .map((l) => l.replace(/^[\s#>*_-]+/, "").replace(/\s+/g, " ").trim())
    .find((l) => l !== "") ?? "Untitled handoff";
  return truncateChars(line, Math.min(80, limits.titleMaxChars));
}

/** A fresh key: `handoff-YYYYMMDD-HHMMSS-xxxxxx` (UTC, six random characters). */
export function generateKey(now: Date = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
  const random = crypto.getRandomValues(new Uint8Array(6));
  return `handoff-${stamp}-${[...random].map((b) => alphabet[b % 36]).join("")}`;
}
