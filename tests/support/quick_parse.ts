/** Checks a tool's quick argument parse against its schema over a fixed random walk. */

import assert from "node:assert/strict";
import type { z } from "zod";
import { quickParseOf } from "../../src/mcp/dispatch.ts";
import { type McpServer, normalizeObjectSchema } from "../../src/mcp/sdk.ts";

/** The parts of the SDK's registered tool these checks read. */
export interface RegisteredTool {
  inputSchema?: unknown;
}

/** The tools registered on `server`, by name (an SDK internal). */
export function registeredTools(server: McpServer): Record<string, RegisteredTool> {
  return (server as unknown as { _registeredTools: Record<string, RegisteredTool> })
    ._registeredTools;
}

/** How to walk the argument sets of one tool. */
export interface QuickParseWalk {
  /** A valid argument set; each walk starts from a copy of it. */
  plain: Record<string, unknown>;
  /** Values put under the schema's field names and `extraNames`. */
  values: unknown[];
  /** Names beside the schema's fields: unknown ones, `__proto__`, `constructor`. */
  extraNames: string[];
  /** Argument sets to try. */
  rounds: number;
  /** At most this many fields are set per argument set, minus one. */
  maxChanges: number;
  /** The seed of the walk, so a failure repeats. */
  seed: number;
  /** The quick parse must take more than this many sets. */
  minTaken: number;
}

/**
 * Asserts `tool` has a quick parse that returns `plain` as is and, for every argument set of the
 * walk it takes, takes only what the schema accepts and returns what the schema returns.
 */
export function assertQuickParseAgrees(tool: RegisteredTool, walk: QuickParseWalk): void {
  const quick = quickParseOf(tool)!;
  assert.ok(quick, "the tool has a quick parse");
  assert.deepEqual(quick({ ...walk.plain }), walk.plain);
  const schema = normalizeObjectSchema(tool.inputSchema as never) as unknown as z.ZodObject;
  const names = [...Object.keys(schema.shape), ...walk.extraNames];
  const plainNames = Object.keys(walk.plain);
  let seed = walk.seed;
  const next = (n: number) => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) % n;
  };
  let taken = 0;
  for (let i = 0; i < walk.rounds; i++) {
    const args: Record<string, unknown> = { ...walk.plain };
    for (let k = next(walk.maxChanges); k > 0; k--) {
      // defineProperty, so `__proto__` becomes an own field as in parsed JSON.
      Object.defineProperty(args, names[next(names.length)], {
        value: walk.values[next(walk.values.length)],
        enumerable: true,
        configurable: true,
        writable: true,
      });
    }
    if (next(5) === 0) delete args[plainNames[next(plainNames.length)]];
    const got = quick(args);
    if (got === undefined) continue;
    taken++;
    const parsed = schema.safeParse(args);
    assert.ok(parsed.success, `quick takes what the schema refuses: ${JSON.stringify(args)}`);
    assert.deepEqual(got, parsed.data, JSON.stringify(args));
  }
  assert.ok(taken > walk.minTaken, `the quick parse took ${taken} argument sets`);
}
