/** Test helper for the store layer: a fresh in-memory KV per test. */

/** Runs `fn` with a fresh in-memory KV, closed afterwards. */
export async function withKv(fn: (kv: Deno.Kv) => Promise<void>): Promise<void> {
  const kv = await Deno.openKv(":memory:");
  try {
    await fn(kv);
  } finally {
    kv.close();
  }
}

/**
 * Counts the commits attempted on `kv` from now on: `count()` all of them, `failed()` those whose
 * check failed.
 */
export function countCommits(kv: Deno.Kv): { count(): number; failed(): number } {
  let commits = 0;
  let failed = 0;
  const atomic = kv.atomic.bind(kv);
  kv.atomic = () => {
    const op = atomic();
    const commit = op.commit.bind(op);
    op.commit = async () => {
      commits++;
      const result = await commit();
      if (!result.ok) failed++;
      return result;
    };
    return op;
  };
  return { count: () => commits, failed: () => failed };
}
