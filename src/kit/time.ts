/** Time as stored records write it. */

/** The time `ms` (now when omitted: a store with its own clock passes it) as ISO-8601 UTC. */
export function nowIso(ms: number = Date.now()): string {
  return new Date(ms).toISOString();
}

/**
 * Whether `work` settles within `ms` (a shutdown's grace period): `false` once `ms` has passed
 * with it still running. The timer is cleared either way, so it never holds the process open.
 */
export async function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => timer = setTimeout(() => resolve(false), ms));
  const settled = await Promise.race([work.then(() => true), late]);
  clearTimeout(timer);
  return settled;
}
