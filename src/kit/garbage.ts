/**
 * Letting go of garbage where V8 would keep it. V8 collects when it allocates, sizing its heap by
 * how fast the process allocates: a server that falls idle after a burst of large writes
 * allocates nothing, so the burst's garbage (hundreds of MiB after 32 MiB-sized saves) would stay
 * resident until the next busy spell; a hook converting a long transcript lets its heap grow far
 * past what is live.
 * `node:v8`'s `setFlagsFromString("--expose-gc")` and a fresh `node:vm` context give the one
 * documented way to ask for a full collection in a running process.
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
