/**
 * The one set of input checks for text and ids, and the two ways of measuring text: characters
 * (Unicode code points, what a person counts) and UTF-8 bytes (what storage and wires count).
 * Every check throws an `AppError` whose message names the field and what it allows.
 */

import { AppError, type ErrorKind } from "./errors.ts";

/** The field a check is about, as its error message names it. */
export interface Field {
  /** The argument's name, e.g. `project_id`. */
  name: string;
  /** What was being done, prefixed to the message (`Cannot add task`). */
  what?: string;
  /** A toolset's machine code for this failure, passed to `AppError`. */
  code?: string;
}

/** A block of text measured in bytes, and the setting that names its limit. */
export interface TextField extends Field {
  /** The environment variable that sets the limit, e.g. `HANDOFF_SUMMARY_MAX_BYTES`. */
  setting: string;
}

/** C0 and C1 control characters (tab is allowed where text may hold one). */
const CONTROL = /\p{Cc}/u;
/** Line breaks, including the Unicode line and paragraph separators. */
const LINE_BREAK = /[\r\n\u2028\u2029]/;

/**
 * Invisible and direction-control characters: every format character (Cf: zero-width spaces and
 * joiners, bidi marks, embeddings, overrides and isolates, U+FEFF, U+00AD) and every other
 * default-ignorable one (variation selectors, Hangul fillers, tags). In a name, id or workspace
 * they make two different values look the same (`bob\u200B` is not `bob`), or reorder the
 * text around them on a page.
 */
const INVISIBLE = /[\p{Cf}\p{Default_Ignorable_Code_Point}]/u;

/** The first invisible or direction-control character in `text`, as `U+XXXX`, or `undefined`. */
export function invisibleCharacter(text: string): string | undefined {
  const found = INVISIBLE.exec(text)?.[0];
  if (found === undefined) return undefined;
  return `U+${found.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
}

/**
 * Why `text` (called `what`) may not be a name, id or workspace for the invisible or
 * direction-control character it holds, naming it; `undefined` when it holds none.
 */
export function invisibleProblem(text: string, what: string): string | undefined {
  const code = invisibleCharacter(text);
  if (code === undefined) return undefined;
  return `${what} holds ${code}, an invisible or direction-control character; names, ids and workspaces may not hold one (zero-width, bidi-control and other format or default-ignorable characters), as it makes one look like another`;
}

/** Throws unless `value` is free of invisible and direction-control characters. */
export function checkVisible(value: string, field: Field): void {
  const problem = invisibleProblem(value, field.name);
  if (problem !== undefined) refuse(field, "invalid", problem);
}

/** Characters (Unicode code points) in `text`. */
export function characterCount(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/** UTF-8 bytes of `text` (a lone surrogate counts three, as the U+FFFD it would be written as). */
export function utf8Bytes(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        n += 4;
        i++;
      } else n += 3;
    } else n += 3;
  }
  return n;
}

/** Throws the failure of `field`: an `AppError` of `kind`, its message prefixed with `what`. */
export function refuse(field: Field, kind: ErrorKind, message: string): never {
  throw new AppError(kind, field.what ? `${field.what}: ${message}` : message, field.code);
}

/**
 * Throws unless `value` is well-formed Unicode. KV would store a lone surrogate as U+FFFD, so two
 * different ids or texts would silently become one.
 */
export function checkWellFormed(value: string, field: Field): void {
  if (!value.isWellFormed()) {
    refuse(
      field,
      "invalid",
      `${field.name} has a lone UTF-16 surrogate; lone surrogates are not allowed, send well-formed Unicode text`,
    );
  }
}

/** Throws unless `value` is a string. */
export function checkString(value: unknown, field: Field): asserts value is string {
  if (typeof value !== "string") refuse(field, "invalid", `${field.name} must be a string`);
}

/**
 * Checks an id: a string of 1–`max` characters, not blank, without control characters, lone
 * surrogates, or invisible or direction-control characters. Returns it unchanged (ids are never
 * trimmed: the id is what the caller sent).
 */
export function checkId(value: unknown, max: number, field: Field): string {
  checkString(value, field);
  const length = characterCount(value);
  if (
    length < 1 || length > max || value.trim() === "" || CONTROL.test(value) ||
    !value.isWellFormed()
  ) {
    const got = length === 0
      ? "an empty string"
      : value.trim() === ""
      ? `${length} blank characters`
      : `${length} characters`;
    refuse(
      field,
      "invalid",
      `${field.name} must be 1–${max} characters, not blank, without control characters or lone surrogates, got ${got}`,
    );
  }
  checkVisible(value, field);
  return value;
}

/**
 * Checks one line of text and returns it trimmed: 1–`max` characters, no line breaks (a line
 * format would silently join them), no control characters but tab, well-formed.
 */
export function checkLine(value: unknown, max: number, field: Field): string {
  checkString(value, field);
  const text = value.trim();
  if (text === "") {
    refuse(
      field,
      "invalid",
      `${field.name} must not be empty or whitespace-only (1–${max} characters)`,
    );
  }
  return lineBody(text, max, field, `1–${max}`);
}

/** Like `checkLine`, for an optional field: `null` when absent, empty or blank. */
export function optionalLine(value: unknown, max: number, field: Field): string | null {
  if (value === undefined || value === null) return null;
  checkString(value, field);
  const text = value.trim();
  return text === "" ? null : lineBody(text, max, field, `at most ${max}`);
}

/**
 * Like `optionalLine`, for a name (`from_ai`, a comment's `author`): also refuses invisible and
 * direction-control characters (`checkVisible`).
 */
export function optionalName(value: unknown, max: number, field: Field): string | null {
  const name = optionalLine(value, max, field);
  if (name !== null) checkVisible(name, field);
  return name;
}

function lineBody(text: string, max: number, field: Field, range: string): string {
  switch (lineProblem(text, max, { tab: true })) {
    case "line_break":
      refuse(
        field,
        "invalid",
        `${field.name} must be a single line (no line breaks), ${range} characters`,
      );
      break;
    case "control":
      refuse(field, "invalid", `${field.name} must not contain control characters`);
      break;
    case "lone_surrogate":
      checkWellFormed(text, field);
      break;
    case "too_long":
      refuse(
        field,
        "too_large",
        `${field.name} is ${characterCount(text)} characters; at most ${max} are allowed`,
      );
  }
  return text;
}

/** Why a text is not one line of at most a given length, in the order `lineProblem` checks. */
export type LineProblem = "blank" | "line_break" | "control" | "lone_surrogate" | "too_long";

/**
 * What makes `text` unfit as one line of 1–`max` characters, or `undefined`: blank, a line
 * break, a control character (tab too, unless `tab` allows it), a lone surrogate, too long. For
 * callers that word their own refusal; the others use `checkLine`.
 */
export function lineProblem(
  text: string,
  max: number,
  options: { tab?: boolean } = {},
): LineProblem | undefined {
  if (text.trim() === "") return "blank";
  if (LINE_BREAK.test(text)) return "line_break";
  if (CONTROL.test(options.tab ? text.replaceAll("\t", " ") : text)) return "control";
  if (!text.isWellFormed()) return "lone_surrogate";
  if (characterCount(text) > max) return "too_long";
  return undefined;
}

/** Checks a block of text (a summary, a conversation): a string, well-formed, at most `maxBytes`. */
export function checkText(value: unknown, maxBytes: number, field: TextField): string {
  checkString(value, field);
  checkWellFormed(value, field);
  const bytes = utf8Bytes(value);
  if (bytes > maxBytes) {
    refuse(
      field,
      "too_large",
      `${field.name} is ${bytes} bytes (UTF-8); at most ${maxBytes} bytes (${field.setting}) are allowed`,
    );
  }
  return value;
}

/**
 * Where a text asked to be cut at `index` is cut: there, or one unit later when `index` falls
 * inside a surrogate pair (a character outside the BMP, such as an emoji), so the parts join back
 * byte for byte and a cut always moves forward. The page is measured as made, so the extra unit
 * is counted.
 */
export function cutAt(text: string, index: number): number {
  if (index <= 0 || index >= text.length) return Math.max(0, Math.min(index, text.length));
  const c = text.charCodeAt(index);
  return c >= 0xdc00 && c <= 0xdfff ? index + 1 : index;
}
