/** How a tool learns who called it: from the request's `authInfo`, else the process default. */

import { parseArgs } from "node:util";
import type { Config } from "../config.ts";
import { type Caller, clientNameProblem } from "../kit/caller.ts";
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

/**
 * The caller of a stdio server: the machine's own user, named by `--client-name <name>` (or
 * `--client-name=<name>`), else `CLIENT_NAME`, else `DEFAULT_CLIENT_NAME`; always via `local`.
 * Throws naming the flag when its value is missing or not a valid client name.
 */
export function stdioCaller(config: Config, args: readonly string[]): Caller {
  const flag = clientNameFlag(args);
  return { name: flag ?? config.clientName ?? config.defaultClientName, via: "local" };
}

/**
 * The `--client-name <name>` (or `--client-name=<name>`) of a command line, checked as a client
 * name, or `undefined`; throws naming the flag when its value is missing or not a valid name.
 */
export function clientNameFlag(args: readonly string[]): string | undefined {
  const flag = parseArgs({
    args: [...args],
    options: { "client-name": { type: "string" } },
    strict: false,
    allowPositionals: true,
  }).values["client-name"];
  if (flag === undefined) return undefined;
  // Without a value the parser gives `true`, or takes the next flag as the value.
  if (typeof flag !== "string" || flag.startsWith("--")) {
    throw new Error("--client-name needs a value, e.g. --client-name codex");
  }
  const problem = clientNameProblem(flag, "--client-name");
  if (problem) throw new Error(problem);
  return flag;
}
