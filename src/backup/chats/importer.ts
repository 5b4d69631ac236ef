/**
 * The one chat importer, behind `deno task import-chats` and the console's upload: finds which
 * export each file is from its content, reads it item by item, and writes each conversation as
 * its own handoff (`writer.ts`). A conversation whose digest is already stored writes nothing;
 * the store's `full` error stops the import before it writes past the limit.
 */

import type { HandoffLimits } from "../../handoff/settings.ts";
import { parseChatGpt } from "./chatgpt.ts";
import { parseClaude, parseClaudeMemory, parseClaudeProject } from "./claude.ts";
import { classify, type ExportKind, KIND_ORDER } from "./detect.ts";
import { GeminiGrouper } from "./gemini.ts";
import { jsonItems } from "./json_stream.ts";
import type { ChatDoc, ImportOptions, Parsed } from "./model.ts";
import type { ChatSource } from "./sources.ts";
import { ConversationWriter, type Outcome, Stop } from "./writer.ts";

/** What an import did, for its last lines. */
export interface ImportSummary {
  imported: number;
  updated: number;
  unchanged: number;
  /** Each skipped conversation or file, with why. */
  skipped: string[];
  branchesLeftOut: number;
  attachments: number;
  hiddenLeftOut: number;
  /** Files read as exports, with their kind. */
  files: { name: string; kind: ExportKind }[];
  /** Files that are no export (media, `user.json`…), in a folder or zip. */
  ignored: number;
  bytesRead: number;
  totalBytes: number;
  /** Set when the import stopped early (a store limit). */
  stopped: string | null;
}

/** Where an import writes and what it tells along the way. */
export interface ImportTarget {
  kv: Deno.Kv;
  limits: HandoffLimits;
  /** Hears progress lines, at most about once a second, and the problems as they happen. */
  report: (line: string) => void;
  /** Milliseconds between progress lines (default 1,000). */
  progressMs?: number;
}

/** Imports `sources`; never throws for bad input, which is named in the summary. */
export async function importChats(
  target: ImportTarget,
  sources: ChatSource[],
  options: ImportOptions,
): Promise<ImportSummary> {
  const summary: ImportSummary = {
    imported: 0,
    updated: 0,
    unchanged: 0,
    skipped: [],
    branchesLeftOut: 0,
    attachments: 0,
    hiddenLeftOut: 0,
    files: [],
    ignored: 0,
    bytesRead: 0,
    totalBytes: 0,
    stopped: null,
  };
  const run = new Run(target, summary, options);
  const kinds = await run.classifyAll(sources);
  summary.totalBytes = kinds.reduce((n, k) => n + k.source.size, 0);
  const projects = new Map<string, string>();
  try {
    for (const { source, kind } of kinds) await run.readFile(source, kind, projects);
    await run.writer.drain();
  } catch (error) {
    if (!(error instanceof Stop)) throw error;
    summary.stopped = error.message;
  }
  run.progress(true);
  return summary;
}

/** One import's state. */
class Run {
  /** The first line comes a second in, so a small import shows only its last. */
  #lastProgress = Date.now();
  readonly writer: ConversationWriter;
  constructor(
    readonly target: ImportTarget,
    readonly summary: ImportSummary,
    readonly options: ImportOptions,
  ) {
    this.writer = new ConversationWriter(target.kv, target.limits, {
      done: (doc, outcome, where) => this.done(doc, outcome, where),
      skip: (line) => this.skip(line),
    });
  }

  /** Counts a conversation written or found unchanged. */
  done(doc: ChatDoc, outcome: Outcome, where: string): void {
    this.summary[outcome]++;
    this.summary.branchesLeftOut += doc.branchesLeftOut;
    this.summary.attachments += doc.attachments;
    this.summary.hiddenLeftOut += doc.hiddenLeftOut;
    if (doc.unknownTypes.length > 0) {
      this.target.report(
        `note ${where}: unknown content types named in place: ${doc.unknownTypes.join(", ")}`,
      );
    }
  }

  /** The export sources in the order they are read (projects before conversations). */
  async classifyAll(sources: ChatSource[]): Promise<{ source: ChatSource; kind: ExportKind }[]> {
    const found: { source: ChatSource; kind: ExportKind }[] = [];
    for (const source of sources) {
      const result = await classify(source, this.options.itemMaxBytes);
      if ("kind" in result) {
        found.push({ source, kind: result.kind });
        this.summary.files.push({ name: source.name, kind: result.kind });
      } else if (source.named || result.damaged) {
        this.skip(`${source.name}: ${result.problem}`);
      } else {
        this.summary.ignored++;
      }
    }
    return found.sort((a, b) => KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind));
  }

  skip(line: string): void {
    this.summary.skipped.push(line);
    this.target.report(`skipped ${line}`);
  }

  progress(final = false): void {
    const now = Date.now();
    if (!final && now - this.#lastProgress < (this.target.progressMs ?? 1000)) return;
    this.#lastProgress = now;
    const s = this.summary;
    const done = s.imported + s.updated + s.unchanged;
    this.target.report(
      `${done} conversations done (${s.imported} new, ${s.updated} updated, ${s.unchanged} unchanged, ${s.skipped.length} skipped) · ${
        mb(s.bytesRead)
      } of ${mb(s.totalBytes)} read`,
    );
  }

  /** Reads one export file item by item. */
  async readFile(
    source: ChatSource,
    kind: ExportKind,
    projects: Map<string, string>,
  ): Promise<void> {
    const grouper = kind === "gemini" ? new GeminiGrouper(this.options) : null;
    try {
      const stream = await source.open();
      for await (
        const item of jsonItems(stream, this.options.itemMaxBytes, (n) => {
          this.summary.bytesRead += n;
        })
      ) {
        const where = `${source.name} item ${item.index}`;
        if (item.error !== undefined) {
          this.skip(`${source.name}: ${item.error}`);
          continue;
        }
        if (grouper) {
          const { docs, skip } = grouper.add(item.value);
          if (skip) this.skip(`${where}: ${skip}`);
          for (const doc of docs) {
            await this.writer.write(doc, `${source.name} (conversation ${doc.key})`);
          }
          continue;
        }
        const parsed = this.parse(kind, item.value, projects);
        if ("skip" in parsed) this.skip(`${where}${describe(item.value)}: ${parsed.skip}`);
        else if ("doc" in parsed) {
          await this.writer.write(parsed.doc, `${where}${describe(item.value)}`);
        }
        this.progress();
      }
    } catch (error) {
      if (error instanceof Stop || this.writer.failed) throw error;
      this.skip(
        `${source.name}: ${(error as Error).message}; the conversations before it were imported`,
      );
    }
    for (const doc of grouper?.end() ?? []) {
      await this.writer.write(doc, `${source.name} (conversation ${doc.key})`);
    }
    if (grouper && grouper.notPrompts > 0) {
      this.target.report(
        `note ${source.name}: ${grouper.notPrompts} activity entries that are not Gemini prompts (feedback, settings, other products) left out`,
      );
    }
  }

  parse(kind: ExportKind, value: unknown, projects: Map<string, string>): Parsed {
    switch (kind) {
      case "chatgpt":
        return parseChatGpt(value, this.options);
      case "claude":
        return parseClaude(value, this.options, projects);
      case "claude-projects": {
        const parsed = parseClaudeProject(value);
        const v = value as { uuid?: unknown; name?: unknown };
        if ("doc" in parsed) projects.set(String(v.uuid), String(v.name));
        return parsed;
      }
      case "claude-memory":
        return parseClaudeMemory(value, projects);
      default:
        return { none: true };
    }
  }
}

/** ` (id …, "title")` of an item, for messages. */
function describe(value: unknown): string {
  if (typeof value !== "object" || value === null) return "";
  const v = value as Record<string, unknown>;
  const id = v.conversation_id ?? v.uuid ?? v.id;
  const title = v.title ?? v.name;
  const parts = [
    id !== undefined ? `id ${String(id).slice(0, 60)}` : "",
    typeof title === "string" ? `"${title.slice(0, 60)}"` : "",
  ].filter((p) => p !== "");
  return parts.length > 0 ? ` (${parts.join(", ")})` : "";
}

function mb(bytes: number): string {
  return bytes < 1024 * 1024
    ? `${(bytes / 1024).toFixed(1)} KB`
    : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
