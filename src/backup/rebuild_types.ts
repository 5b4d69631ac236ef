/** The shapes every rebuilder shares (`rebuild.ts` runs them; each `rebuild_*.ts` is one). */

/** A prefix whose entries are all derived: whatever is under it and not planned is deleted. */
export interface OwnedPrefix {
  prefix: Deno.KvKey;
  /** Entries under the prefix that are not derived (kept as they are). */
  keep?: (key: Deno.KvKey) => boolean;
  /** A value that means the same as no entry (a zero counter): kept where planned absent. */
  absent?: (value: unknown) => boolean;
}

/** What one toolset's derived data should be, computed from its records. */
export interface DerivedPlan {
  owned: OwnedPrefix[];
  /** What derived keys (under `owned`) and corrected records (anywhere) must hold. */
  entries: { key: Deno.KvKey; value: unknown }[];
}

/** One toolset's derived data. */
export interface Rebuilder {
  name: string;
  plan(kv: Deno.Kv): Promise<DerivedPlan>;
}
