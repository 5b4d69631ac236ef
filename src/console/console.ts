/**
 * The owner console (not a toolset): pages where the owner, signed in with the owner secret,
 * decides, answers, accepts and manages apps. It writes through the toolsets' and the OAuth
 * server's own store functions as its own caller (`via: console`), so each action has one
 * write path. `main.ts` hands its routes to the HTTP server, which serves them as public routes.
 */

import type { Config } from "../config.ts";
import type { EnvSource } from "../kit/env.ts";
import type { NoticeBus } from "../kit/notices.ts";
import type { Route } from "../kit/web.ts";
import type { Toolset } from "../tools/toolset.ts";
import { loadImportOptions } from "../backup/chats/model.ts";
import { loadHandoffSettings } from "../handoff/settings.ts";
import { loadSearchSettings } from "../search/settings.ts";
import { SEARCH_SOURCES } from "../toolsets.ts";
import { loadTableSettings } from "../table/settings.ts";
import { tableCtx } from "../table/store_common.ts";
import type { ConsoleCtx } from "./context.ts";
import { consoleRoutes } from "./routes.ts";
import { loadConsoleSettings } from "./settings.ts";

/**
 * The console's routes: none (so `/console` is absent, 404) unless an owner secret of at least
 * 16 characters is configured. Throws naming a bad variable. `notices` is the process's notice
 * bus, the one its MCP server tells sessions through: a person's post or decision here is
 * heard at once, as a tool's write is.
 */
export function ownerConsole(
  env: EnvSource,
  config: Config,
  kv: Deno.Kv,
  toolsets: readonly Toolset[],
  notices: NoticeBus,
  now: () => number = Date.now,
): Route[] {
  const settings = loadConsoleSettings(env, config);
  if (settings.ownerSecret === undefined) return [];
  const on = (name: string) => toolsets.some((t) => t.name === name);
  // The table's settings are read from the same environment as the toolset's, and its writes
  // publish on the same bus as the toolset's (`announce` in table/store_notices.ts).
  const table = on("table") ? tableCtx(kv, loadTableSettings(env), notices) : undefined;
  const o = config.oauth;
  const ctx: ConsoleCtx = {
    kv,
    settings: { ...settings, ownerSecret: settings.ownerSecret },
    oauth: o,
    table,
    search: on("search")
      ? {
        sources: new Map(SEARCH_SOURCES.map((s) => [s.kind, s])),
        settings: loadSearchSettings(env),
      }
      : undefined,
    tokenNames: config.namedTokens.map((t) => t.name),
    handoffLimits: on("handoff") ? loadHandoffSettings(env).limits : undefined,
    importOptions: loadImportOptions(env),
    summary: [
      [
        "Toolsets",
        toolsets.map((t) => t.byDefault === false ? `${t.name} (when named)` : t.name).join(", "),
      ],
      ["OAuth sign-in (OAUTH)", o.enabled ? "on" : "off"],
      ["Public URL (PUBLIC_URL)", o.publicUrl ?? "not set: the request's own origin"],
      ["Owner (OWNER_NAME)", settings.ownerName],
      ["Console sign-in lasts (CONSOLE_SESSION_HOURS)", `${settings.sessionMs / 3_600_000} h`],
      ["Wrong secrets per address (OAUTH_MAX_FAILED_ATTEMPTS)", `${o.maxFailedAttempts} in 15 min`],
      [
        "Wrong secrets in total (OAUTH_MAX_FAILED_ATTEMPTS_TOTAL)",
        `${o.maxFailedAttemptsTotal} in 15 min`,
      ],
      ["Refresh grace (OAUTH_REFRESH_GRACE_SECONDS)", `${o.refreshGraceMs / 1000} s`],
      ["Largest request (MAX_REQUEST_BYTES)", `${config.maxRequestBytes} bytes`],
      ["Legacy SSE sessions (SSE_MAX_SESSIONS)", String(config.sseMaxSessions)],
      ...(table === undefined ? [] : tableSummary(table.settings)),
    ],
    now,
  };
  return consoleRoutes(ctx);
}

function tableSummary(s: ReturnType<typeof loadTableSettings>): [string, string][] {
  return [
    ["Default workspace (TABLE_DEFAULT_WORKSPACE)", s.defaultWorkspace],
    ["Handoffs stale after (TABLE_STALE_DAYS)", `${s.staleDays} days`],
    ["Approval code (APPROVAL_SECRET)", s.approvalSecret === undefined ? "not set" : "set"],
    ["Read-only view (VIEW_TOKEN)", s.viewToken === undefined ? "off" : "on, at /view"],
    ["Times shown in (VIEW_TIME_ZONE)", s.viewTimeZone],
    ["Largest message (TABLE_MESSAGE_MAX_BYTES)", `${s.limits.messageMaxBytes} bytes`],
  ];
}
