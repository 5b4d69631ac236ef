/**
 * Settings from the environment: the source they are read from and one parser per kind of
 * value, each throwing an `Error` that names the variable and what it allows.
 */

/** Anything with `get`, so tests can pass a `Map` and `main.ts` passes `Deno.env`. */
export interface EnvSource {
  get(name: string): string | undefined;
}

/** A boolean variable (`true`/`false`, `1`/`0`, `yes`/`no`, `on`/`off`), `fallback` when unset. */
export function boolVar(env: EnvSource, name: string, fallback: boolean): boolean {
  const raw = env.get(name)?.trim().toLowerCase();
  if (raw === undefined || raw === "") return fallback;
  if (["1", "true", "yes", "on"].includes(raw)) return true;
  if (["0", "false", "no", "off"].includes(raw)) return false;
  throw new Error(`${name} must be true or false (also 1/0, yes/no, on/off), got "${raw}"`);
}

/** A whole-number variable from `min` to `max`, `fallback` when unset. */
export function intVar(
  env: EnvSource,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const raw = env.get(name);
  if (raw === undefined || raw.trim() === "") return fallback;
  if (!/^\d+$/.test(raw.trim())) {
    throw new Error(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  const value = Number(raw.trim());
  if (value < min || value > max) {
    throw new Error(`${name} must be a whole number from ${min} to ${max}, got ${value}`);
  }
  return value;
}
