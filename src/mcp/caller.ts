/** How a tool learns who called it: from the request's `authInfo`, else the process default. */

import type { Config } from "../config.ts";
import type { Caller, CallerVia } from "../kit/caller.ts";
import type { AuthInfo } from "./sdk.ts";
import type { McpDeps } from "../tools/toolset.ts";

const VIAS: readonly CallerVia[] = ["oauth", "token", "header", "local", "default"];

/**
 * The caller of the tool call `ctx` (the SDK's handler context) belongs to. HTTP (both eras) and
 * SSE carry the caller resolved by `http/identity.ts` in `ctx.http.authInfo.extra.caller`; stdio
 * has no `authInfo`, so the process default in `deps.caller` applies. Nothing per request lives in `deps`, so tool definitions can be
 * built once per process.
 */
export function callerOf(
  ctx: { http?: { authInfo?: AuthInfo } } | undefined,
  deps: McpDeps,
): Caller {
  const carried = ctx?.http?.authInfo?.extra?.caller;
  return isCaller(carried) ? carried : deps.caller;
}

/** The caller of an HTTP request that named nobody: `DEFAULT_CLIENT_NAME`, via `default`. */
export function defaultCaller(config: Config): Caller {
  return { name: config.defaultClientName, via: "default" };
}

function isCaller(value: unknown): value is Caller {
  if (typeof value !== "object" || value === null) return false;
  const c = value as Record<string, unknown>;
  return typeof c.name === "string" && VIAS.includes(c.via as CallerVia) &&
    (c.clientId === undefined || typeof c.clientId === "string");
}
