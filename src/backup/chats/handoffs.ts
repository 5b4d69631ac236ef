/**
 * A conversation read from an export → the handoff saves that hold it: one, or numbered parts
 * (`<key>`, `<key>-part-2`, …) that say so when it is over `HANDOFF_CONVERSATION_MAX_BYTES`,
 * never cut silently. Each carries the digest of what it writes, so a re-import of the same text
 * is recognised without writing.
 */

import type { HandoffLimits } from "../../handoff/settings.ts";
import type { SaveInput } from "../../handoff/store_save.ts";
import { hashText } from "./digest.ts";
import { type ChatDoc, cutChars, titleOf, type Turn, VENDOR_NAMES } from "./model.ts";

const encoder = new TextEncoder();
/** Room kept in each part for the line saying which part it is. */
const PART_HEADER_BYTES = 400;

/** `2024-05-01T10:00:00.000Z` → `2024-05-01 10:00:00 UTC`. */
function shortTime(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
}

/** One turn as a `## User` / `## Assistant` section. */
function section(turn: Turn): string {
  const who = turn.role === "user" ? "User" : "Assistant";
  const when = turn.time ? ` (${shortTime(turn.time)})` : "";
  return `## ${who}${when}\n\n${turn.text.toWellFormed().replace(/\s+$/, "")}\n`;
}

/** Splits one section too big for a part at line breaks (or characters), marking continuations. */
function splitSection(text: string, budget: number): string[] {
  const pieces: string[] = [];
  let current = "";
  let bytes = 0;
  for (const line of text.split(/(?<=\n)/)) {
    for (const piece of line.length * 3 > budget ? [...line] : [line]) {
      const size = encoder.encode(piece).byteLength;
      if (bytes + size > budget && current !== "") {
        pieces.push(current);
        current = "";
        bytes = 0;
      }
      current += piece;
      bytes += size;
    }
  }
  if (current !== "") pieces.push(current);
  return pieces.map((p, i) => i === 0 ? p : `_(continued from the previous part)_\n\n${p}`);
}

/** The conversation's sections grouped into parts of at most `budget` bytes. */
function partsOf(sections: string[], budget: number): string[] {
  const parts: string[] = [];
  let current = "";
  let bytes = 0;
  for (const whole of sections) {
    const size = encoder.encode(whole).byteLength + 1;
    for (const piece of size > budget ? splitSection(whole, budget - 100) : [whole]) {
      const pieceSize = encoder.encode(piece).byteLength + 1;
      if (bytes + pieceSize > budget && current !== "") {
        parts.push(current);
        current = "";
        bytes = 0;
      }
      current += (current === "" ? "" : "\n") + piece;
      bytes += pieceSize;
    }
  }
  if (current !== "") parts.push(current);
  return parts;
}

/** What the handoff's summary says: where it came from, its size and what was left out. */
function summaryOf(doc: ChatDoc, title: string): string {
  const from = VENDOR_NAMES[doc.vendor];
  const lines = [`Imported from ${from}: "${title}".`];
  if (doc.turns.length > 0) {
    const span = doc.createdAt ? ` from ${doc.createdAt.slice(0, 10)}` : "";
    const until = doc.updatedAt ? ` to ${doc.updatedAt.slice(0, 10)}` : "";
    lines.push(`${doc.turns.length} messages${span}${until}.`);
  }
  const notes: string[] = [];
  if (doc.branchesLeftOut > 0) notes.push(`${doc.branchesLeftOut} abandoned branches left out`);
  if (doc.hiddenLeftOut > 0) notes.push(`${doc.hiddenLeftOut} hidden messages left out`);
  if (doc.attachments > 0) notes.push(`${doc.attachments} images/files named in place`);
  if (doc.unknownTypes.length > 0) {
    notes.push(`unknown content types named in place: ${doc.unknownTypes.slice(0, 10).join(", ")}`);
  }
  if (notes.length > 0) lines.push(`${notes.join("; ")}.`);
  return lines.join(" ");
}

/** Tags that fit the limits: the source first, then the project. */
function fittingTags(tags: string[], limits: HandoffLimits): string[] {
  return tags.filter((t) => [...t].length <= limits.tagMaxChars).slice(0, limits.tagsMax);
}

/** The saves that hold `doc`: one, or its numbered parts. */
export function savesOf(doc: ChatDoc, limits: HandoffLimits): SaveInput[] {
  const title = titleOf(doc);
  const summary = summaryOf(doc, title);
  const sections = doc.body !== undefined
    ? [`## User\n\n${doc.body.toWellFormed().replace(/\s+$/, "")}\n`]
    : doc.turns.map(section);
  const texts = partsOf(sections, limits.conversationMaxBytes - PART_HEADER_BYTES);
  const keys = texts.map((_, i) => i === 0 ? doc.key : `${doc.key}-part-${i + 1}`);
  return texts.map((text, i) => {
    const many = texts.length > 1;
    const partTitle = many ? `${title} (part ${i + 1} of ${texts.length})` : title;
    const conversation = many
      ? `_Part ${
        i + 1
      } of ${texts.length} of one imported conversation, split to fit HANDOFF_CONVERSATION_MAX_BYTES=${limits.conversationMaxBytes}; its parts: ${
        keys.join(", ")
      }._\n\n${text}`
      : text;
    const input: SaveInput = {
      key: keys[i],
      title: cutChars(partTitle, limits.titleMaxChars),
      summary: many ? `${summary} Part ${i + 1} of ${texts.length}.` : summary,
      conversation,
      fromAi: VENDOR_NAMES[doc.vendor],
      status: "completed",
      tags: fittingTags(doc.tags, limits),
    };
    const digest = hashText(JSON.stringify([input, doc.createdAt]));
    const imported = {
      source: doc.vendor,
      digest,
      createdAt: doc.createdAt,
      updatedAt: doc.updatedAt ?? doc.turns.findLast((t) => t.time !== null)?.time ?? null,
    };
    return { ...input, imported };
  });
}
