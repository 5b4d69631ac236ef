/**
 * What a stored record of each key family must look like, checked where it is read and where it
 * is imported. A record of the wrong shape (a hand-edited import, a damaged file) then makes a
 * tool answer "this stored record is damaged: <key>" instead of failing later with a TypeError.
 * Each toolset declares its families once (`defineRecords`), from the module its stores import,
 * so the kit's read helpers (reads.ts) check every entry they return without knowing any
 * toolset. Extra fields are allowed: only what the code relies on is checked.
 */

/** A check of one value: what is wrong with it, or `undefined`. */
export type Shape = (value: unknown) => string | undefined;

/** A key family: the types of the key's parts after the family name, and the value's shape. */
export interface RecordFamily {
  key: readonly ("string" | "number")[];
  value: Shape;
}

const families = new Map<string, RecordFamily>();

/** Declares key families (by their first key part). A family declared twice keeps the last. */
export function defineRecords(defined: Record<string, RecordFamily>): void {
  for (const [name, family] of Object.entries(defined)) families.set(name, family);
}

/** The families declared so far, by name. */
export function declaredFamilies(): ReadonlyMap<string, RecordFamily> {
  return families;
}

/** What is wrong with an entry of a declared family, or `undefined` (also for other families). */
export function storedProblem(key: Deno.KvKey, value: unknown): string | undefined {
  const family = typeof key[0] === "string" ? families.get(key[0]) : undefined;
  if (family === undefined) return undefined;
  const parts = key.slice(1);
  if (
    parts.length !== family.key.length || parts.some((p, i) => typeof p !== family.key[i])
  ) {
    const name = key[0] as string;
    return `a ${name} key is [${[JSON.stringify(name), ...family.key].join(", ")}]`;
  }
  return family.value(value);
}

/** What a damaged record's error says: it names the key and what is wrong. */
export function damagedMessage(key: Deno.KvKey, problem: string): string {
  return `this stored record is damaged: ${keyLabel(key)} (${problem}). The database was ` +
    "edited, or imported from an edited file: restore it from a backup";
}

/** Whether any family is declared (nothing to check otherwise). */
export function anyDeclared(): boolean {
  return families.size > 0;
}

/** A key as text: `["discussion","01J…"]`. */
export function keyLabel(key: Deno.KvKey): string {
  return JSON.stringify(
    key.map((p) => typeof p === "bigint" ? `${p}n` : p instanceof Uint8Array ? [...p] : p),
  );
}

// The shapes records are made of.

/** A string. */
export const str: Shape = (v) => typeof v === "string" ? undefined : `expected text, ${found(v)}`;
/** A whole number ≥ 0. */
export const count: Shape = (v) =>
  Number.isSafeInteger(v) && (v as number) >= 0
    ? undefined
    : `expected a whole number ≥ 0, ${found(v)}`;
/** A finite number. */
export const num: Shape = (v) => Number.isFinite(v) ? undefined : `expected a number, ${found(v)}`;
/** `true` or `false`. */
export const bool: Shape = (v) =>
  typeof v === "boolean" ? undefined : `expected true or false, ${found(v)}`;
/** Bytes (`Uint8Array`). */
export const bytes: Shape = (v) =>
  v instanceof Uint8Array ? undefined : `expected bytes, ${found(v)}`;
/** A KV counter (`Deno.KvU64`). */
export const u64: Shape = (v) =>
  v instanceof Deno.KvU64 ? undefined : `expected a KvU64 counter, ${found(v)}`;
/** One of `values`. */
export function oneOf(values: readonly string[]): Shape {
  return (v) =>
    values.includes(v as string) ? undefined : `expected one of ${values.join(", ")}, ${found(v)}`;
}
/** `shape`, or the field absent. */
export function opt(shape: Shape): Shape {
  return (v) => v === undefined ? undefined : shape(v);
}
/** `shape`, or `null`. */
export function nullable(shape: Shape): Shape {
  return (v) => v === null ? undefined : shape(v);
}
/** A list of `shape`. */
export function list(shape: Shape): Shape {
  return (v) => {
    if (!Array.isArray(v)) return `expected a list, ${found(v)}`;
    for (let i = 0; i < v.length; i++) {
      const problem = shape(v[i]);
      if (problem !== undefined) return `[${i}]: ${problem}`;
    }
    return undefined;
  };
}
/** An object with these fields (others allowed). */
export function obj(fields: Record<string, Shape>): Shape {
  const entries = Object.entries(fields);
  return (v) => {
    if (typeof v !== "object" || v === null || Array.isArray(v)) {
      return `expected a record, ${found(v)}`;
    }
    for (const [name, shape] of entries) {
      const problem = shape((v as Record<string, unknown>)[name]);
      if (problem !== undefined) return `${name}: ${problem}`;
    }
    return undefined;
  };
}

function found(v: unknown): string {
  if (v === undefined) return "found nothing";
  if (v === null) return "found null";
  if (Array.isArray(v)) return "found a list";
  if (v instanceof Uint8Array) return "found bytes";
  if (typeof v === "object") return `found a ${v.constructor?.name ?? "record"}`;
  const text = JSON.stringify(typeof v === "bigint" ? `${v}n` : v);
  return `found ${typeof v} ${text.length > 40 ? text.slice(0, 40) + "…" : text}`;
}
