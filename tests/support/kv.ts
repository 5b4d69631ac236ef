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
