/** What a toolset is to the server: a name, instructions, its tools, and any HTTP routes. */

import type { SearchSource } from "../kit/search_source.ts";
import type { Config } from "../config.ts";
import type { Caller } from "../kit/caller.ts";
import type { EnvSource } from "../kit/env.ts";
import type { NoticeBus } from "../kit/notices.ts";
import type { Route } from "../kit/web.ts";
import type { ToolRegistrar } from "./registry.ts";
import type { Icon } from "./sdk.ts";

/**
 * What every toolset may need per server: KV (opened once per process) and the server
 * settings. A toolset's own settings come from its `load`, never from here.
 */
export interface McpDeps {
  kv: Deno.Kv;
  config: Config;
  /**
   * The process's default caller: on stdio the local user (`CLIENT_NAME`), over HTTP the
   * `DEFAULT_CLIENT_NAME`. A request's own caller arrives with the request; read it with
   * `callerOf(extra, deps)`, never from here directly.
   */
  caller: Caller;
  /**
   * The process's notice bus (`kit/notices.ts`): a toolset publishes a change sessions may be
   * told of. `createMcpApp` makes one when none is given.
   */
  notices?: NoticeBus;
}

/**
 * One toolset, with its own settings already read (each toolset parses its settings in its
 * folder). `http/` and `mcp/server.ts` know features only through this shape.
 */
export interface Toolset {
  /** The name clients use in `TOOLSETS` and `?toolsets=`. */
  name: string;
  /** The paragraph this toolset adds to the server's instructions. */
  instructions: string;
  /** The icons every tool of the toolset carries (a tool may give its own). */
  icons?: Icon[];
  /** Registers the toolset's tools, prompts and resources on `server`. */
  register(server: ToolRegistrar, deps: McpDeps): void;
  /**
   * Brings the toolset's stored data up to date before anything is served (a migration), once
   * per start; must be resumable (a stopped run is finished by the next start).
   */
  prepare?(kv: Deno.Kv): Promise<void>;
  /** HTTP routes after the token (JSON APIs, pages), if the toolset has any. */
  routes?(deps: McpDeps): Route[];
  /**
   * `false`: loaded, but served only to a connector that names it (`?toolsets=`) unless
   * `TOOLSETS` names it; see `defaultSelection` in `toolsets.ts`.
   */
  byDefault?: boolean;
}

/** A toolset before its settings are read: `load` reads them and throws naming a bad variable. */
export interface ToolsetDefinition {
  name: string;
  /** `false`: served only when named (`TOOLSETS`, `?toolsets=`); every other toolset is on. */
  byDefault?: boolean;
  load(env: EnvSource): Toolset;
  /**
   * The kinds this toolset's stores index for search (kit/search_source.ts): how each item is
   * read back. Declared whether or not the toolset is enabled, as its records stay searchable.
   */
  searchSources?: readonly SearchSource[];
}
