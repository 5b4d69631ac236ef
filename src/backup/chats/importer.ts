/**
 * The one chat importer, behind `deno task import-chats` and the console's upload: finds which
 * export each file is from its content, reads it item by item, and writes each conversation as
 * its own handoff through the handoff store's save. A conversation whose digest is already stored
 * writes nothing; the store's `full` error stops the import before it writes past the limit.
 */

import type { HandoffLimits } from "../../handoff/settings.ts";
import { saveHandoff, type SaveInput } from "../../handoff/store_save.ts";
import { type Handoff, handoffKey } from "../../handoff/store_schema.ts";
import { AppError, readKey } from "../../kit/kv.ts";
import { parseChatGpt } from "./chatgpt.ts";
import { parseClaude, parseClaudeMemory, parseClaudeProject } from "./claude.ts";
import { classify, type ExportKind, KIND_ORDER } from "./detect.ts";
import { GeminiGrouper } from "./gemini.ts";
import { savesOf } from "./handoffs.ts";
import { jsonItems } from "./json_stream.ts";
import type { ChatDoc, ImportOptions, Parsed } from "./model.ts";
import type { ChatSource } from "./sources.ts";

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

/** Raised to stop an import: the store cannot take more. */
class Stop extends Error {}

/**
 * Conversations handled at once: their reads (is it stored already, unchanged?) overlap, which
 * makes a re-import fast. Their saves take turns: every new handoff checks and sets the one
 * import count, so concurrent saves would only fail each other's checks and retry.
 */
const WRITES_IN_FLIGHT = 4;

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
    await run.drain();
  } catch (error) {
    if (!(error instanceof Stop)) throw error;
    summary.stopped = error.message;
  }
  run.progress(true);
  return summary;
}

/** One import's state. */
class Run {
  #lastProgress = 0;
  readonly #inFlight = new Set<Promise<void>>();
  /** The last save started: the next one waits for it. */
  #saving: Promise<unknown> = Promise.resolve();
  #failure: unknown = null;
  constructor(
    readonly target: ImportTarget,
    readonly summary: ImportSummary,
    readonly options: ImportOptions,
  ) {}

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
          for (const doc of docs) await this.write(doc, `${source.name} (conversation ${doc.key})`);
          continue;
        }
        const parsed = this.parse(kind, item.value, projects);
        if ("skip" in parsed) this.skip(`${where}${describe(item.value)}: ${parsed.skip}`);
        else if ("doc" in parsed) await this.write(parsed.doc, `${where}${describe(item.value)}`);
        this.progress();
      }
    } catch (error) {
      if (error instanceof Stop || this.#failure !== null) throw error;
      this.skip(
        `${source.name}: ${(error as Error).message}; the conversations before it were imported`,
      );
    }
    for (const doc of grouper?.end() ?? []) {
      await this.write(doc, `${source.name} (conversation ${doc.key})`);
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

  /** Starts writing `doc` once fewer than `WRITES_IN_FLIGHT` writes are running. */
  async write(doc: ChatDoc, where: string): Promise<void> {
    while (this.#inFlight.size >= WRITES_IN_FLIGHT) await Promise.race(this.#inFlight);
    this.#raise();
    const task: Promise<void> = this.#writeDoc(doc, where)
      .catch((error) => {
        this.#failure ??= error;
      })
      .finally(() => this.#inFlight.delete(task));
    this.#inFlight.add(task);
  }

  /** Waits for every write started; throws the first failure (a `Stop`, or a store error). */
  async drain(): Promise<void> {
    await Promise.all(this.#inFlight);
    this.#raise();
  }

  #raise(): void {
    if (this.#failure !== null) throw this.#failure;
  }

  /** Writes one conversation (each part on its own); unchanged parts write nothing. */
  async #writeDoc(doc: ChatDoc, where: string): Promise<void> {
    const saves = savesOf(doc, this.target.limits);
    let outcome: "imported" | "updated" | "unchanged" = "unchanged";
    for (const save of saves) {
      const result = await this.writeOne(save, where);
      if (result === null) return;
      if (result === "imported" && outcome === "unchanged") outcome = "imported";
      if (result === "updated") outcome = "updated";
    }
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

  async writeOne(
    save: SaveInput,
    where: string,
  ): Promise<"imported" | "updated" | "unchanged" | null> {
    const { kv, limits } = this.target;
    const existing = (await readKey<Handoff>(kv, handoffKey(save.key!))).value;
    if (existing && !existing.imported) {
      this.skip(
        `${where}: the key "${save.key}" is taken by a handoff that was not imported; left as it is`,
      );
      return null;
    }
    if (existing?.imported?.digest === save.imported!.digest) return "unchanged";
    const turn = this.#saving.then(() => saveHandoff(kv, limits, save));
    this.#saving = turn.catch(() => {});
    try {
      await turn;
    } catch (error) {
      if (error instanceof AppError && error.kind === "full") {
        throw new Stop(`stopped before ${where}: ${error.message}`);
      }
      if (error instanceof AppError) {
        this.skip(`${where}: ${error.message}`);
        return null;
      }
      throw error;
    }
    return existing ? "updated" : "imported";
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
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
