/**
 * Writing imported conversations: each through the handoff store's own save, in the order they
 * were read. Up to `WRITES_IN_FLIGHT` conversations are checked at once (is each part stored
 * already with the same digest?), which makes a re-import fast; their saves then take turns in
 * read order, since every new handoff checks and sets the one import count, and concurrent saves
 * would only fail each other's checks. After a `full` error no later conversation is saved.
 */

import type { HandoffLimits } from "../../handoff/settings.ts";
import { deleteHandoff } from "../../handoff/store_delete.ts";
import { saveHandoff, type SaveInput } from "../../handoff/store_save.ts";
import { type Handoff, handoffKey } from "../../handoff/store_schema.ts";
import { AppError } from "../../kit/errors.ts";
import { readKey } from "../../kit/reads.ts";
import { savesOf } from "./handoffs.ts";
import type { ChatDoc } from "./model.ts";

/** Conversations checked at once; also bounds the conversations held in memory. */
const WRITES_IN_FLIGHT = 4;

/** Raised to stop an import: the store cannot take more. */
export class Stop extends Error {}

/** What happened to one conversation. */
export type Outcome = "imported" | "updated" | "unchanged";

/** What the writer tells its import. */
export interface WriterEvents {
  /** A conversation written (or found unchanged), once all its parts are. */
  done(doc: ChatDoc, outcome: Outcome, where: string): void;
  /** A conversation not written, with why. */
  skip(line: string): void;
}

/** Writes conversations for one import. */
export class ConversationWriter {
  readonly #inFlight = new Set<Promise<void>>();
  /** Settles when the last conversation started has had its turn to save. */
  #turn: Promise<void> = Promise.resolve();
  #failure: unknown = null;

  constructor(
    readonly kv: Deno.Kv,
    readonly limits: HandoffLimits,
    readonly events: WriterEvents,
  ) {}

  /** Starts writing `doc` once fewer than `WRITES_IN_FLIGHT` are running; throws a failure. */
  async write(doc: ChatDoc, where: string): Promise<void> {
    while (this.#inFlight.size >= WRITES_IN_FLIGHT) await Promise.race(this.#inFlight);
    this.#raise();
    const prior = this.#turn;
    let release!: () => void;
    this.#turn = new Promise((resolve) => release = resolve);
    const task: Promise<void> = this.#writeDoc(doc, where, prior)
      .catch((error) => {
        this.#failure ??= error;
      })
      .finally(async () => {
        await prior;
        release();
        this.#inFlight.delete(task);
      });
    this.#inFlight.add(task);
  }

  /** Waits for every write started; throws the first failure (a `Stop`, or a store error). */
  async drain(): Promise<void> {
    await Promise.all(this.#inFlight);
    this.#raise();
  }

  /** True once a write failed: the import must stop. */
  get failed(): boolean {
    return this.#failure !== null;
  }

  #raise(): void {
    if (this.#failure !== null) throw this.#failure;
  }

  async #writeDoc(doc: ChatDoc, where: string, prior: Promise<void>): Promise<void> {
    const saves = savesOf(doc, this.limits);
    if (saves.length === 0) {
      this.events.skip(
        `${where}: no visible messages (${doc.hiddenLeftOut} hidden left out; --keep-hidden keeps them)`,
      );
      return;
    }
    const stored = await Promise.all(
      saves.map((s) => readKey<Handoff>(this.kv, handoffKey(s.key!))),
    );
    const taken = stored.findIndex((e) => e.value !== null && !e.value.imported);
    if (taken >= 0) {
      this.events.skip(
        `${where}: the key "${
          saves[taken].key
        }" is taken by a handoff that was not imported; left as it is`,
      );
      return;
    }
    const changed = saves.filter((s, i) =>
      stored[i].value?.imported?.digest !== s.imported!.digest
    );
    if (changed.length > 0) {
      await prior; // saves in read order
      if (this.#failure !== null) return;
      for (const save of changed) if (!(await this.#save(save, where))) return;
      await this.#dropStaleParts(doc.key, saves.length);
    }
    const outcome: Outcome = changed.length === 0
      ? "unchanged"
      : stored[0].value === null
      ? "imported"
      : "updated";
    this.events.done(doc, outcome, where);
  }

  /**
   * Deletes the parts past `count` an earlier import of this conversation left (it was split
   * into more parts then), through the store's own delete; stops at the first that is missing.
   */
  async #dropStaleParts(key: string, count: number): Promise<void> {
    for (let n = count + 1;; n++) {
      const part = `${key}-part-${n}`;
      const stored = (await readKey<Handoff>(this.kv, handoffKey(part))).value;
      if (stored === null || !stored.imported) return;
      await deleteHandoff(this.kv, this.limits, part);
    }
  }

  /** Saves one part; false when it was refused (named as skipped). */
  async #save(save: SaveInput, where: string): Promise<boolean> {
    try {
      await saveHandoff(this.kv, this.limits, save);
      return true;
    } catch (error) {
      if (error instanceof AppError && error.kind === "full") {
        throw new Stop(`stopped before ${where}: ${error.message}`);
      }
      if (error instanceof AppError) {
        this.events.skip(`${where}: ${error.message}`);
        return false;
      }
      throw error;
    }
  }
}
