/** Time as stored records write it. */

/** The time `ms` (now when omitted: a store with its own clock passes it) as ISO-8601 UTC. */
export function nowIso(ms: number = Date.now()): string {
  return new Date(ms).toISOString();
}
