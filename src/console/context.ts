/** What every console handler is handed. */

import type { ImportOptions } from "../backup/chats/model.ts";
import type { HandoffLimits } from "../handoff/settings.ts";
import type { Caller } from "../kit/caller.ts";
import type { OAuthSettings } from "../oauth/settings.ts";
import type { Sources } from "../search/fold.ts";
import type { SearchSettings } from "../search/settings.ts";
import type { TableCtx } from "../table/store_common.ts";
import type { Frame } from "./html_layout.ts";
import type { ConsoleSettings } from "./settings.ts";
import type { ConsoleRequest, Session } from "./web.ts";

/** The console's dependencies, built once at start. */
export interface ConsoleCtx {
  kv: Deno.Kv;
  settings: ConsoleSettings & { ownerSecret: string };
  oauth: OAuthSettings;
  /** The table's stores, or `undefined` when the table toolset is off. */
  table: TableCtx | undefined;
  /** The search index's sources and settings, or `undefined` when the search toolset is off. */
  search: { sources: Sources; settings: SearchSettings } | undefined;
  /** Names of the named tokens, never their values. */
  tokenNames: string[];
  /** The handoff store's limits, for imported chats; `undefined` when the handoff toolset is off. */
  handoffLimits: HandoffLimits | undefined;
  /** The chat importer's settings (`CHATS_*`). */
  importOptions: ImportOptions;
  /** The settings the apps page shows, read-only. */
  summary: [string, string][];
  now(): number;
}

/** One signed-in request. */
export interface Signed {
  r: ConsoleRequest;
  session: Session;
  params: Record<string, string>;
}

/** The caller everything done in the console is recorded as. */
export function consoleCaller(ctx: ConsoleCtx): Caller {
  return { name: ctx.settings.ownerName, via: "console" };
}

/** The frame of a signed-in page. */
export function frameOf(ctx: ConsoleCtx, s: Signed): Frame {
  return {
    ownerName: ctx.settings.ownerName,
    zone: ctx.table?.settings.viewTimeZone ?? "UTC",
    csrf: s.session.csrf,
  };
}
