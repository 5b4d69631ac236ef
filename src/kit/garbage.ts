/**
 * Letting go of garbage where V8 would keep it. V8 collects when it allocates, sizing its heap by
 * how fast the process allocates: a server that falls idle after a burst of large writes
 * allocates nothing, so the burst's garbage (hundreds of MiB after 32 MiB-sized saves) would stay
 * resident until the next busy spell; a hook converting a long transcript lets its heap grow far
 * past what is live.
 * `node:v8`'s `setFlagsFromString("--expose-gc")` and a fresh `node:vm` context give the one
 * documented way to ask for a full collection in a running process. What that `gc` runs is V8's
 * low-memory notification (traced as "low memory notification": memory-reducing full collections
 * until nothing more is freed), whatever options it is given. It returns the freed pages at once,
 * and the code that runs next is slower, as if what the process had warmed (compiled code,
 * caches) were gone: measured in-process on a zod parse loop, the 20 iterations after it cost
 * 5–6× the steady rate, the next 200 about 2×, and the rate stays some 20 % higher for a while.
 * Which part of V8's state that is was not pinned down: `--no-flush-bytecode`,
 * `--no-flush-baseline-code` and a larger young generation changed nothing. A regular major
 * collection (`gc({ type: "major" })` with `--expose-gc` given at start) costs nothing afterwards,
 * but keeps the pages it frees: after the bench `http` load it left 226 MiB resident (248 before;
 * 111 after this one).
 */

import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

let gc: (() => void) | null | undefined;

/** Runs a full garbage collection, when the runtime allows it (else does nothing). */
export function releaseGarbage(): void {
  if (gc === undefined) {
    try {
      setFlagsFromString("--expose-gc");
      const found = runInNewContext("gc");
      gc = typeof found === "function" ? found as () => void : null;
    } catch {
      gc = null;
    }
  }
  gc?.();
}
