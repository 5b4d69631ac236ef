/** Checks of handoff input before anything is written, and the cutting and naming of text. */

import type { HandoffLimits } from "./settings.ts";
import { invalid } from "../kit/errors.ts";
import { characterCount, utf8Bytes } from "../kit/text.ts";
import { HANDOFF_STATUSES, type HandoffStatus, RESERVED_KEYS } from "./store_schema.ts";

const KEY_PATTERN = /^[A-Za-z0-9_-]+$/;

const TAG_PATTERN = /^[a-z0-9_:.\/-]+$/;

/** Checks a handoff key: 1–max characters of `[A-Za-z0-9_-]`, not a reserved word. */
export function validateKey(key: unknown, limits: HandoffLimits, what: string): string {
  const allowed = `1–${limits.keyMaxChars} characters of A-Z a-z 0-9 _ -`;
  if (typeof key !== "string") invalid(`${what}: key must be a string of ${allowed}`);
  const length = characterCount(key);
  if (length === 0 || length > limits.keyMaxChars) {
    invalid(`${what}: key must be ${allowed}, got ${length} characters`);
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
    if (!TAG_PATTERN.test(tag) || characterCount(tag) > limits.tagMaxChars) {
      invalid(
        `${what}: tag "${
          clip(raw)
        }" is not allowed: tags are 1–${limits.tagMaxChars} characters of a-z 0-9 _ : - . / (uppercase is lowercased), e.g. project:acme/widget.js`,
      );
    }
    if (!out.includes(tag)) out.push(tag);
  }
  if (out.length > limits.tagsMax) {
    invalid(`${what}: ${out.length} tags given; at most ${limits.tagsMax} are allowed`);
  }
  return out;
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
  if (characterCount(text) <= max) return text;
  let cut = [...text].slice(0, max - 1).join("");
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
