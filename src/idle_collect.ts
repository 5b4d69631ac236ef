/**
 * Gives memory back when the server falls idle after a busy spell. Under load V8 lets its heap
 * grow far past what is live (measured in the bench `http` group: 16 clients took the heap to
 * 140 MiB with 23 MiB live, RSS 230–260 MiB), and its own memory reducer shrinks it only some
 * 8–10 s after allocation stops. This watches the heap once a second: when it has grown by
 * `IDLE_COLLECT_MIB` since the last collection and next to nothing was allocated during the last
 * `IDLE_READINGS` seconds, it runs one full collection (`kit/garbage.ts`), which returns the freed
 * pages at once. One collection per growth of that size; not while requests allocate nor in a
 * pause between bursts shorter than that (a heuristic: idle is judged by how far `heapUsed` moved
 * between readings); and at most one per `IDLE_COLLECT_SPACING` readings in which the heap moved,
 * so its CPU is bounded.
 */

import { releaseGarbage } from "./kit/garbage.ts";

/** What the collector reads each second: V8's heap, as `Deno.memoryUsage()` gives it. */
export interface HeapReading {
  heapUsed: number;
  heapTotal: number;
}

/** How the collector decides; `IDLE_COLLECT_MIB` in `config.ts` sets `growthBytes`. */
export interface IdleCollectSettings {
  /** Heap growth (bytes of `heapTotal`) since the last collection that makes one worth it; 0 = off. */
  growthBytes: number;
  /** Below this change of `heapUsed` between two readings, the process counts as idle. */
  idleBytes?: number;
  /** Busy readings after a collection before the next may run (`IDLE_COLLECT_SPACING`). */
  spacing?: number;
  /** Idle readings in a row before a collection runs (`IDLE_READINGS`). */
  quiet?: number;
}

/**
 * A change of `heapUsed` below this between two readings a second apart counts as idle: under
 * the bench's load the server allocates tens of MiB a second, while the search folder working
 * through the writes of that load afterwards allocates about 0.5 MiB a second, and would
 * otherwise put the collection off until it is done.
 */
const IDLE_ALLOCATION_BYTES = 2 * 1024 * 1024;

/**
 * Idle readings in a row (a second apart) before a collection runs. A full collection of a loaded
 * heap costs tens of milliseconds, and the code that runs after it is slower until warmed again
 * (`kit/garbage.ts`): a server whose load comes in bursts a second or two apart paid 20–40 % more
 * CPU per call collecting in every pause. Two quiet readings let such pauses pass, and still give
 * the memory of a busy spell back two or three seconds after it ends.
 */
const IDLE_READINGS = 2;

/**
 * Busy readings (seconds in which `heapUsed` moved by `IDLE_ALLOCATION_BYTES` or more, which is
 * mostly work) after a collection before another may run: a collection's cost is spread over
 * that much, whatever the load's rhythm; bursts shorter than that after a collection share it, and
 * what they grew is left to V8's own reducer until a later burst completes the spacing. A
 * collection costs tens of milliseconds, and the code that runs after it is slower until warmed
 * again (measured in-process: the first 320 calls after one cost about twice the steady rate).
 * Counted in wall seconds (30) it held back the collection after the second of two loads half a
 * minute apart (the bench `switches` group: RSS 239 MiB 5 s after it), and 8 busy seconds still
 * held back one after loads of 5–7 s: each load of 5 s or more is followed by its collection, and
 * shorter bursts share one.
 */
const IDLE_COLLECT_SPACING = 5;

/**
 * The decision, apart from the clock so tests can drive it: `tick` is given one reading per
 * interval and says whether it collected.
 */
export class IdleCollector {
  readonly #settings: Required<IdleCollectSettings>;
  readonly #collect: () => void;
  readonly #read: () => HeapReading;
  /** `heapTotal` after the last collection (or at start): growth is measured from here. */
  #settled: number;
  #lastUsed: number;
  /** Busy readings left before a collection may run again. */
  #wait = 0;
  /** Idle readings in a row so far. */
  #quiet = 0;

  constructor(
    settings: IdleCollectSettings,
    read: () => HeapReading = () => Deno.memoryUsage(),
    collect: () => void = releaseGarbage,
  ) {
    this.#settings = {
      idleBytes: IDLE_ALLOCATION_BYTES,
      spacing: IDLE_COLLECT_SPACING,
      quiet: IDLE_READINGS,
      ...settings,
    };
    this.#read = read;
    this.#collect = collect;
    const first = read();
    this.#settled = first.heapTotal;
    this.#lastUsed = first.heapUsed;
  }

  /** Takes one reading; collects (and returns true) when the heap grew and the process is idle. */
  tick(): boolean {
    const { growthBytes, idleBytes, spacing, quiet } = this.#settings;
    const now = this.#read();
    const idle = Math.abs(now.heapUsed - this.#lastUsed) < idleBytes;
    if (!idle && this.#wait > 0) this.#wait--;
    this.#quiet = idle ? this.#quiet + 1 : 0;
    this.#lastUsed = now.heapUsed;
    // A heap that shrank on its own (V8's reducer) is the new starting point.
    if (now.heapTotal < this.#settled) this.#settled = now.heapTotal;
    if (growthBytes === 0 || this.#quiet < quiet || now.heapTotal - this.#settled < growthBytes) {
      return false;
    }
    if (this.#wait > 0) return false;
    this.#collect();
    this.#wait = spacing;
    this.#quiet = 0;
    const after = this.#read();
    this.#settled = after.heapTotal;
    this.#lastUsed = after.heapUsed;
    return true;
  }
}

/** How often the heap is read, in milliseconds. */
const IDLE_COLLECT_INTERVAL_MS = 1000;

/**
 * Starts watching this process's heap (see the module note) until `signal` aborts. The timer
 * never keeps the process alive; with `growthMiB` 0 nothing starts.
 */
export function collectWhenIdle(growthMiB: number, signal: AbortSignal): void {
  if (growthMiB === 0) return;
  const collector = new IdleCollector({ growthBytes: growthMiB * 1024 * 1024 });
  const timer = setInterval(() => collector.tick(), IDLE_COLLECT_INTERVAL_MS);
  Deno.unrefTimer(timer);
  signal.addEventListener("abort", () => clearInterval(timer), { once: true });
}
