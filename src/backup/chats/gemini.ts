/**
 * Gemini's Takeout activity (`MyActivity.json`, newest first) → conversations: turns closer
 * than the gap (`CHATS_GEMINI_GAP_MINUTES`) belong together. There is no conversation id, so a
 * conversation's key is a hash of its first turn, which a newer export does not change.
 */

import type { ChatDoc, ImportOptions, Turn } from "./model.ts";
import { isoOfString } from "./model.ts";
import { hashText } from "./digest.ts";
import { htmlToMarkdown } from "./html_markdown.ts";

type Obj = Record<string, unknown>;

function isObject(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** True when `item` is a Takeout activity entry (any product). */
export function isActivity(item: unknown): boolean {
  return isObject(item) && typeof item.header === "string" && typeof item.time === "string" &&
    typeof item.title === "string";
}

/** True when the entry is Gemini's (formerly Bard's). */
function isGemini(item: Obj): boolean {
  return /^(gemini|bard)/i.test(String(item.header)) ||
    (Array.isArray(item.products) && item.products.some((p) => /gemini|bard/i.test(String(p))));
}

/** One prompt and its answer. */
interface Exchange {
  time: string;
  ms: number;
  prompt: string;
  answer: string;
  attachments: number;
}

/** Groups activity entries into conversations as they stream by, newest first. */
export class GeminiGrouper {
  #group: Exchange[] = [];
  /** Entries that were not a prompt (feedback, settings), or not Gemini's. */
  notPrompts = 0;
  constructor(readonly options: ImportOptions) {}

  /** Takes one entry; returns the conversation it closed, if any, or why it was skipped. */
  add(item: unknown): { docs: ChatDoc[]; skip?: string } {
    if (!isActivity(item)) return { docs: [], skip: "not an activity entry" };
    const entry = item as Obj;
    const time = isoOfString(entry.time);
    const title = String(entry.title);
    if (!isGemini(entry) || time === null || !/^Prompted /.test(title)) {
      this.notPrompts++;
      return { docs: [] };
    }
    const exchange = toExchange(entry, time, title);
    const last = this.#group[this.#group.length - 1];
    const gap = this.options.geminiGapMinutes * 60_000;
    const docs: ChatDoc[] = [];
    if (last && Math.abs(last.ms - exchange.ms) > gap) docs.push(this.#close());
    this.#group.push(exchange);
    return { docs };
  }

  /** The last conversation, at the end of the file. */
  end(): ChatDoc[] {
    return this.#group.length > 0 ? [this.#close()] : [];
  }

  #close(): ChatDoc {
    const exchanges = this.#group.sort((a, b) => a.ms - b.ms);
    this.#group = [];
    const first = exchanges[0];
    const turns: Turn[] = [];
    for (const e of exchanges) {
      turns.push({ role: "user", time: e.time, text: e.prompt });
      if (e.answer !== "") turns.push({ role: "assistant", time: e.time, text: e.answer });
    }
    return {
      vendor: "gemini",
      key: `gemini-${hashText(`${first.time}\n${first.prompt}`).slice(0, 24)}`,
      title: null,
      createdAt: first.time,
      updatedAt: exchanges[exchanges.length - 1].time,
      turns,
      tags: ["source:gemini"],
      branchesLeftOut: 0,
      attachments: exchanges.reduce((n, e) => n + e.attachments, 0),
      hiddenLeftOut: 0,
      unknownTypes: [],
    };
  }
}

function toExchange(entry: Obj, time: string, title: string): Exchange {
  const html = Array.isArray(entry.safeHtmlItem)
    ? entry.safeHtmlItem.filter(isObject).map((h) => String(h.html ?? "")).join("\n")
    : "";
  const files = [
    ...(Array.isArray(entry.attachedFiles) ? entry.attachedFiles : []),
    ...(typeof entry.imageFile === "string" ? [entry.imageFile] : []),
  ].map(String);
  const named = files.map((f) =>
    `[${/\.(png|jpe?g|gif|webp)$/i.test(f) ? "image" : "file"}: ${f}]`
  );
  return {
    time,
    ms: Date.parse(time),
    prompt: [title.replace(/^Prompted /, ""), ...named].join("\n\n"),
    answer: htmlToMarkdown(html),
    attachments: files.length,
  };
}
