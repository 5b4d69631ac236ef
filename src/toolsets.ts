/** The one list of toolsets this build can serve, in the order their tools are registered. */

import { focusToolset } from "./focus/toolset.ts";
import { handoffToolset } from "./handoff/toolset.ts";
import { memoryToolset } from "./memory/toolset.ts";
import type { Toolset, ToolsetDefinition } from "./mcp/toolset.ts";
import { tableToolsetDefinition } from "./table/toolset.ts";
import { thinkingToolset } from "./thinking/toolset.ts";

/** Every toolset, in registration order. */
export const TOOLSETS: readonly ToolsetDefinition[] = [
  focusToolset,
  handoffToolset,
  thinkingToolset,
  tableToolsetDefinition,
  memoryToolset,
];

/** The names of every toolset, in registration order. */
export const TOOLSET_NAMES: readonly string[] = TOOLSETS.map((t) => t.name);

/**
 * Parses a comma list of toolset names (`undefined` or empty means all of them) into the known
 * names in registration order; throws naming `what` and the allowed names.
 */
export function parseToolsetNames(raw: string | undefined, what: string): string[] {
  const names = (raw ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "");
  if (names.length === 0) return [...TOOLSET_NAMES];
  for (const name of names) {
    if (!TOOLSET_NAMES.includes(name)) {
      throw new Error(
        `${what} has unknown toolset "${name}": allowed are ${TOOLSET_NAMES.join(", ")}`,
      );
    }
  }
  return TOOLSET_NAMES.filter((name) => names.includes(name));
}

/**
 * The toolsets `TOOLSETS` enables, each with its own settings read from `env`. Unset, every
 * toolset is loaded and those off by default (`byDefault: false`) are marked so: a connector
 * reaches them by naming them (`?toolsets=memory`). Named in `TOOLSETS`, a toolset is on.
 */
export function loadToolsets(env: { get(name: string): string | undefined }): Toolset[] {
  const raw = env.get("TOOLSETS");
  const names = parseToolsetNames(raw, "TOOLSETS");
  const named = (raw ?? "").trim() !== "";
  return TOOLSETS.filter((t) => names.includes(t.name)).map((t) => {
    const toolset = t.load(env);
    return named || t.byDefault !== false ? toolset : { ...toolset, byDefault: false };
  });
}

/** What a connector that names no toolset gets: the enabled toolsets that are on by default. */
export function defaultSelection(enabled: readonly Toolset[]): Toolset[] {
  return enabled.filter((t) => t.byDefault !== false);
}

/** Runs each toolset's start-up `prepare` (its migrations) on `kv`, in registration order. */
export async function prepareToolsets(toolsets: readonly Toolset[], kv: Deno.Kv): Promise<void> {
  for (const toolset of toolsets) await toolset.prepare?.(kv);
}
