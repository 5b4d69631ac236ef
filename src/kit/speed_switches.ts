/**
 * The bench's switches: every cache, queue, batch and fast path the server keeps can be turned
 * off here, so `deno task bench switches` can show what each one earns on its goal (the house
 * rule: ≥ 1.5× on a named goal, or it goes). Bench-only: `BENCH_SWITCHES=off:key_batch,…`
 * (names below) in the server's environment; unset, everything is on. Turning one off never
 * changes what the server answers, only how fast.
 */

/** The mechanisms that can be turned off, each with the goal its bench row measures. */
export const SPEED_SWITCHES = {
  /** `kit/commit.ts` `commitBatched`: a turn carries every write waiting behind it (hot-key throughput). */
  key_batch: "a hot key's turn carries the writes waiting behind it",
  /** `focus/store_cache.ts`: `get_state` checks one versionstamp (500 follow-ups CPU). */
  state_cache: "get_state answers from the cached state of an unchanged project",
  /** `mcp/listening.ts`: listeners are told a macrotask after a write (post p50, 100 listeners). */
  notice_defer: "listeners are told of a change a macrotask after the write, not during it",
} as const;

/** One switch's name. */
export type SpeedSwitch = keyof typeof SPEED_SWITCHES;

/** The bench-only variable that turns switches off. */
export const SWITCHES_VAR = "BENCH_SWITCHES";

/**
 * The switches `value` turns off (`off:a,b`); throws naming the variable and the names allowed,
 * so a misspelt switch never leaves a bench row measuring nothing.
 */
export function parseSwitches(value: string | undefined): Set<SpeedSwitch> {
  const off = new Set<SpeedSwitch>();
  if (value === undefined || value.trim() === "") return off;
  const allowed = Object.keys(SPEED_SWITCHES);
  const match = /^off:(.+)$/.exec(value.trim());
  if (match === null) {
    throw new Error(
      `${SWITCHES_VAR} must be "off:" and a comma-separated list of ${
        allowed.join(", ")
      }, got "${value}"`,
    );
  }
  for (const name of match[1].split(",").map((n) => n.trim())) {
    if (!allowed.includes(name)) {
      throw new Error(`${SWITCHES_VAR} names "${name}"; allowed: ${allowed.join(", ")}`);
    }
    off.add(name as SpeedSwitch);
  }
  return off;
}

let switchedOff: Set<SpeedSwitch> | undefined;

/** Reads the variable now, so a misspelt switch stops the server at start, naming it. */
export function checkSpeedSwitches(): void {
  switchedOff ??= parseSwitches(readVar());
}

/** True unless the bench turned `name` off; the variable is read once per process. */
export function speedOn(name: SpeedSwitch): boolean {
  switchedOff ??= parseSwitches(readVar());
  return !switchedOff.has(name);
}

/** The variable's value; a process without env permission (a test, a hook) has everything on. */
function readVar(): string | undefined {
  try {
    return Deno.env.get(SWITCHES_VAR);
  } catch {
    return undefined;
  }
}
