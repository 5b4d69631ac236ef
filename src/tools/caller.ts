/** How a tool learns who called it: from the request's `authInfo`, else the process default. */

import type { Config } from "../config.ts";
import type { Caller } from "../kit/caller.ts";
import type { AuthInfo } from "./sdk.ts";
import type { McpDeps } from "./toolset.ts";

/**
 * Each caller by the `authInfo` made for it. Only `authInfoOf` adds to it, and the SDK hands a
 * tool handler the very `authInfo` object the front gave it, so what is read back is the caller
 * the front resolved, with nothing to check again.
 */
const CARRIED = new WeakMap<AuthInfo, Caller>();

/**
 * The SDK `authInfo` that carries `caller` (resolved once by `http/identity.ts`) to tool
 * handlers, read back by `callerOf`. It holds no secret: the token field is empty on purpose.
 */
export function authInfoOf(caller: Caller): AuthInfo {
  const info: AuthInfo = { token: "", clientId: caller.clientId ?? caller.name, scopes: [] };
  CARRIED.set(info, caller);
  return info;
}

/**
 * The caller of the tool call `ctx` (the SDK's handler context) belongs to: the one carried by
 * `ctx.http.authInfo` over HTTP (both eras) and SSE; stdio has no `authInfo`, so the process
 * default in `deps.caller` applies. Nothing per request lives in `deps`, so tool definitions can
 * be built once per process.
 */
export function callerOf(
  ctx: { http?: { authInfo?: AuthInfo } } | undefined,
  deps: McpDeps,
): Caller {
  const authInfo = ctx?.http?.authInfo;
  return (authInfo && CARRIED.get(authInfo)) ?? deps.caller;
}

/** The caller of an HTTP request that named nobody: `DEFAULT_CLIENT_NAME`, via `default`. */
export function defaultCaller(config: Config): Caller {
  return { name: config.defaultClientName, via: "default" };
}
