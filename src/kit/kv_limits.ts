/**
 * Deno KV's limits on one atomic, and the size estimate writers use to stay under them when they
 * split a large write (a prefix deleted or rewritten, a restore's derived data) into batches.
 */

/** Most checks Deno KV takes in one atomic. */
export const MAX_ATOMIC_CHECKS = 100;

/**
 * An upper estimate of what `value` takes once serialized (two bytes per UTF-16 unit), walking
 * objects and arrays until the estimate passes `cap`.
 */
export function roughSize(value: unknown, cap: number): number {
  let total = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && total <= cap) {
    const v = stack.pop();
    if (typeof v === "string") total += 8 + v.length * 2;
    else if (v instanceof Uint8Array) total += 8 + v.byteLength;
    else if (v !== null && typeof v === "object") {
      total += 8;
      if (Array.isArray(v)) { for (const item of v) stack.push(item); }
      else {
        for (const k in v) {
          total += 8 + k.length * 2;
          stack.push((v as Record<string, unknown>)[k]);
        }
      }
    } else total += 16;
  }
  return total;
}
