/**
 * Retrying what a busy local KV file refuses. Another process holding the SQLite file makes a
 * read or commit throw `database is locked` (nothing was applied); reads and commits retry that
 * with jittered exponential backoff for at most `RETRY_BUDGET_MS`, so no store chooses whether to.
 */

/** How long a retry loop (a locked file, a write's conflicting attempts) keeps trying. */
export const RETRY_BUDGET_MS = 20_000;

/** Reads or commits, retrying while a local KV file is locked by another process. */
export async function retryLocked<T>(work: () => Promise<T>): Promise<T> {
  const started = Date.now();
  for (let round = 0;; round++) {
    try {
      return await work();
    } catch (error) {
      if (!isLocked(error) || Date.now() - started > RETRY_BUDGET_MS) throw error;
      await backoff(round);
    }
  }
}

/** True when `error` is KV refusing a locked local file (nothing was applied). */
export function isLocked(error: unknown): boolean {
  return error instanceof Error && /database is locked|SQLITE_BUSY/i.test(error.message);
}

/** Waits a jittered, growing while before try `round + 1` (at most about 200 ms). */
export function backoff(round: number): Promise<void> {
  const cap = Math.min(200, 2 ** Math.min(round, 8));
  return new Promise((resolve) => setTimeout(resolve, 1 + Math.random() * cap));
}
