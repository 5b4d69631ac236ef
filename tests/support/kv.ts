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

/** Counts the commits attempted on `kv` from now on (landed or not): read `count()` afterwards. */
export function countCommits(kv: Deno.Kv): { count(): number } {
  let commits = 0;
  const atomic = kv.atomic.bind(kv);
  kv.atomic = () => {
    const op = atomic();
    const commit = op.commit.bind(op);
    op.commit = () => {
      commits++;
      return commit();
    };
    return op;
  };
  return { count: () => commits };
}
