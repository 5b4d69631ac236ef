import assert from "node:assert/strict";
import { AppError } from "./errors.ts";
import {
  characterCount,
  checkId,
  checkLine,
  checkText,
  checkWellFormed,
  invisibleCharacter,
  lineProblem,
  optionalLine,
  optionalName,
  utf8Bytes,
} from "./text.ts";

function refusedWith(fn: () => unknown, kind: AppError["kind"], message: RegExp, code?: string) {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof AppError, `expected AppError, got ${error}`);
    assert.equal(error.kind, kind, error.message);
    assert.match(error.message, message);
    assert.equal(error.code, code);
    return true;
  });
}

Deno.test("characterCount() counts code points and utf8Bytes() agrees with TextEncoder", () => {
  for (const text of ["", "abc", "é", "日本語", "😀x", "a\u{10FFFF}", "\uD800", "\uDC00a"]) {
    assert.equal(utf8Bytes(text), new TextEncoder().encode(text).byteLength, JSON.stringify(text));
  }
  assert.equal(characterCount("😀日a"), 3);
  assert.equal(characterCount(""), 0);
});

Deno.test("checkId() refuses empty, blank, too long, control characters and lone surrogates", () => {
  const field = { name: "project_id", what: "Cannot do it" };
  assert.equal(checkId("a b", 5, field), "a b");
  assert.equal(checkId("😀😀😀😀😀", 5, field), "😀😀😀😀😀");
  refusedWith(
    () => checkId("", 5, field),
    "invalid",
    /^Cannot do it: project_id must be 1–5 .*an empty string/,
  );
  refusedWith(() => checkId("   ", 5, field), "invalid", /not blank.*got 3 blank characters/);
  refusedWith(() => checkId("abcdef", 5, field), "invalid", /got 6 characters/);
  refusedWith(() => checkId("a\u0000", 5, field), "invalid", /control characters/);
  refusedWith(() => checkId("a\uD800", 5, field), "invalid", /lone surrogates/);
  refusedWith(() => checkId(4, 5, field), "invalid", /project_id must be a string/);
  refusedWith(
    () => checkId("", 5, { name: "branchId", code: "X" }),
    "invalid",
    /^X: branchId/,
    "X",
  );
});

Deno.test("checkLine() trims one line; optionalLine() gives null for blank", () => {
  const field = { name: "title" };
  assert.equal(checkLine("  hi\tthere ", 10, field), "hi\tthere");
  assert.equal(optionalLine("  ", 10, field), null);
  assert.equal(optionalLine(undefined, 10, field), null);
  refusedWith(() => checkLine(" ", 10, field), "invalid", /must not be empty or whitespace-only/);
  refusedWith(() => checkLine("a\nb", 10, field), "invalid", /single line.*1–10 characters/);
  refusedWith(() => optionalLine("a\u2028b", 10, field), "invalid", /single line.*at most 10/);
  refusedWith(() => optionalLine("a\u0007", 10, field), "invalid", /control characters/);
  refusedWith(() => optionalLine("a\uDBFF", 10, field), "invalid", /lone UTF-16 surrogate/);
  refusedWith(() => checkLine("x".repeat(11), 10, field), "too_large", /11 characters; at most 10/);
});

Deno.test("checkText() bounds UTF-8 bytes, naming the setting, and refuses lone surrogates", () => {
  const field = { name: "summary", setting: "SUMMARY_MAX" };
  assert.equal(checkText("日本", 6, field), "日本");
  refusedWith(
    () => checkText("日本語", 6, field),
    "too_large",
    /9 bytes \(UTF-8\); at most 6 bytes \(SUMMARY_MAX\)/,
  );
  refusedWith(() => checkText("\uDFFF", 6, field), "invalid", /lone UTF-16 surrogate/);
  refusedWith(() => checkWellFormed("\uD800\uD800", { name: "x" }), "invalid", /x has a lone/);
});

Deno.test("lineProblem() names the first problem of a line, for callers that word their own", () => {
  assert.equal(lineProblem("a b", 3), undefined);
  assert.equal(lineProblem(" \t ", 3), "blank");
  assert.equal(lineProblem("a\u2029b", 3), "line_break");
  assert.equal(lineProblem("a\tb", 3), "control");
  assert.equal(lineProblem("a\tb", 3, { tab: true }), undefined);
  assert.equal(lineProblem("a\u0085", 3), "control");
  assert.equal(lineProblem("a\uDC00", 3), "lone_surrogate");
  assert.equal(lineProblem("😀😀😀😀", 3), "too_long");
});

/** The characters issue 23 found accepted in names, and others of their kinds. */
const INVISIBLE_SAMPLES = [
  "\u200B", // zero width space
  "\u200C",
  "\u200D",
  "\u200E",
  "\u200F",
  "\u202A",
  "\u202B",
  "\u202C",
  "\u202D",
  "\u202E", // right-to-left override
  "\u2060",
  "\u2061",
  "\u2062",
  "\u2063",
  "\u2064",
  "\u2066",
  "\u2067",
  "\u2068",
  "\u2069",
  "\uFEFF",
  "\u00AD",
  "\u061C", // Arabic letter mark
  "\u180E", // Mongolian vowel separator
  "\uFE0F", // variation selector
  "\u3164", // Hangul filler
  "\u{E0041}", // tag
];

Deno.test("invisibleCharacter() names zero-width, bidi-control and other ignorable characters", () => {
  for (const c of INVISIBLE_SAMPLES) {
    const code = `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
    assert.equal(invisibleCharacter(`bob${c}`), code, code);
  }
  assert.equal(invisibleCharacter("\u202EedualC"), "U+202E");
  for (const fine of ["bob", "Zoë", "日本語", "owner/repo", "a b", "😀", "עברית", "\u00A0x"]) {
    assert.equal(invisibleCharacter(fine), undefined, fine);
  }
});

Deno.test("checkId() and optionalName() refuse invisible and direction-control characters, naming one", () => {
  refusedWith(
    () => checkId("proj\u200Bect", 64, { name: "project_id", what: "Cannot do it" }),
    "invalid",
    /^Cannot do it: project_id holds U\+200B, an invisible or direction-control character/,
  );
  refusedWith(
    () => optionalName("\u202EedualC", 64, { name: "from_ai" }),
    "invalid",
    /from_ai holds U\+202E/,
  );
  assert.equal(optionalName(" claude ", 64, { name: "from_ai" }), "claude");
  assert.equal(optionalName("", 64, { name: "from_ai" }), null);
});
