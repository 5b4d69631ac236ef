/**
 * Large request bodies admitted up to a byte budget in flight (`WRITE_BUDGET_BYTES`), so that
 * many large writes at once cannot grow the process without bound. Measured on 32 concurrent
 * 1 MiB `handoff_save`s (bench `rss`): each costs about 10 MiB while it runs (the body's bytes,
 * its text as UTF-16, the parsed arguments, the encoded chunks, KV's copies), which V8 and the
 * allocator then keep; no single copy dominates, so the fix is how many run at once. A body of
 * `LARGE_BODY_BYTES` or more waits its turn (first come, first served) for at most
 * `WRITE_WAIT_MS` (30 s, under the SDK clients' 60 s request timeout), then is refused as busy
 * before a byte of it is read. Smaller ones pass.
 */

import { AppError } from "../kit/errors.ts";
import { type EnvSource, intVar } from "../kit/env.ts";
import { releaseGarbage } from "../kit/garbage.ts";

/** The admission's settings, read with the server's (`config.ts`). */
export interface AdmissionSettings {
  /** Bytes of large bodies in flight at once (`WRITE_BUDGET_BYTES`). */
  budgetBytes: number;
  /** Longest a large body waits for room before it is refused as busy (`WRITE_WAIT_MS`). */
  waitMs: number;
}

const MIB = 1024 * 1024;

/** Reads `WRITE_BUDGET_BYTES` and `WRITE_WAIT_MS`; throws naming a bad one. */
export function loadAdmissionSettings(env: EnvSource): AdmissionSettings {
  return {
    budgetBytes: intVar(env, "WRITE_BUDGET_BYTES", 4 * MIB, 64 * 1024, 1024 * MIB),
    waitMs: intVar(env, "WRITE_WAIT_MS", 30_000, 0, 600_000),
  };
}

/** Bodies at least this large count against the budget; smaller ones are never held up. */
export const LARGE_BODY_BYTES = 64 * 1024;

/** After this many budgets admitted since the last collection, garbage is let go between requests. */
const COLLECT_EVERY_BUDGETS = 1;
/** A quiet spell after the last large body, after which its garbage is let go. */
const COLLECT_IDLE_MS = 500;

/** The budget of one process; `admit` before reading a body, call the release when done. */
export class WriteAdmission {
  readonly #settings: AdmissionSettings;
  readonly #collect: () => void;
  readonly #queue: { bytes: number; grant: () => void }[] = [];
  #inFlight = 0;
  #sinceCollect = 0;
  #idleTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(settings: AdmissionSettings, collect: () => void = releaseGarbage) {
    this.#settings = settings;
    this.#collect = collect;
  }

  /** Bytes of large bodies admitted and not yet released. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /**
   * Admits a body of `bytes` (its Content-Length, or the request limit when it has none): at
   * once when small or when it fits, else when earlier ones are done; throws `busy` after
   * `WRITE_WAIT_MS`. A body larger than the whole budget runs alone. Resolves to its release.
   */
  async admit(bytes: number): Promise<() => void> {
    if (bytes < LARGE_BODY_BYTES) return () => {};
    clearTimeout(this.#idleTimer);
    if (this.#queue.length === 0 && this.#fits(bytes)) this.#inFlight += bytes;
    else await this.#wait(bytes);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#inFlight -= bytes;
      this.#sinceCollect += bytes;
      this.#grantWaiting();
      this.#afterRelease();
    };
  }

  #fits(bytes: number): boolean {
    return this.#inFlight === 0 || this.#inFlight + bytes <= this.#settings.budgetBytes;
  }

  #wait(bytes: number): Promise<void> {
    const { budgetBytes, waitMs } = this.#settings;
    return new Promise<void>((resolve, reject) => {
      const waiter = {
        bytes,
        grant: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        this.#queue.splice(this.#queue.indexOf(waiter), 1);
        // The head leaving may let the next ones in.
        this.#grantWaiting();
        reject(
          new AppError(
            "busy",
            `Server busy: other large writes fill WRITE_BUDGET_BYTES (${budgetBytes} bytes in ` +
              `flight); this request of ${bytes} bytes waited WRITE_WAIT_MS (${waitMs} ms) and ` +
              "was not read. Nothing was written: retry in a moment.",
          ),
        );
      }, waitMs);
      this.#queue.push(waiter);
    });
  }

  /** Lets in waiters in arrival order while they fit: a large one is never passed over. */
  #grantWaiting(): void {
    while (this.#queue.length > 0 && this.#fits(this.#queue[0].bytes)) {
      const next = this.#queue.shift()!;
      this.#inFlight += next.bytes;
      next.grant();
    }
  }

  /**
   * Garbage of large bodies is let go between requests: every few budgets' worth during a long
   * run of them, and once things are quiet. V8 alone would keep it (it collects when it
   * allocates, and a server that goes quiet allocates nothing), holding the peak of a burst for
   * as long as the process lives.
   */
  #afterRelease(): void {
    if (this.#sinceCollect >= COLLECT_EVERY_BUDGETS * this.#settings.budgetBytes) {
      this.#sinceCollect = 0;
      setTimeout(this.#collect, 0);
    }
    if (this.#inFlight === 0 && this.#queue.length === 0) {
      clearTimeout(this.#idleTimer);
      this.#idleTimer = setTimeout(() => {
        this.#sinceCollect = 0;
        this.#collect();
      }, COLLECT_IDLE_MS);
      Deno.unrefTimer(this.#idleTimer);
    }
  }
}

/**
 * The bytes a request's body counts for: its declared length; a chunked body (no length) the
 * request limit, as it may be that large. `req.body` is not touched: asking for it wraps a body
 * Deno already holds in a stream.
 */
export function bodyBytes(req: Request, maxRequestBytes: number): number {
  if (req.method === "GET" || req.method === "HEAD") return 0;
  const length = req.headers.get("content-length");
  if (length !== null && /^\d+$/.test(length)) return Number(length);
  return req.headers.has("transfer-encoding") ? maxRequestBytes : 0;
}
