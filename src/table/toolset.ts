/** The table toolset: discussions, decisions, plans, tasks and handoffs shared by every client. */

import { TABLE_SEARCH_SOURCES } from "./search.ts";
import type { Toolset, ToolsetDefinition } from "../tools/toolset.ts";
import { TABLE_ICONS } from "./icon.ts";
import { loadTableSettings, type TableSettings } from "./settings.ts";
import { tableCtx } from "./store_common.ts";
import { registerTableTools, TABLE_INSTRUCTIONS } from "./tools.ts";
import { viewRoutes } from "./view.ts";

/** The table toolset with these settings (tests pass their own clock). */
export function tableToolset(settings: TableSettings): Toolset {
  return {
    name: "table",
    instructions: TABLE_INSTRUCTIONS,
    icons: TABLE_ICONS,
    register: (server, deps) => registerTableTools(server, deps, settings),
    routes: (deps) => viewRoutes(tableCtx(deps.kv, settings)),
  };
}

/** The table toolset's entry in the toolset list; `/view` is its route. */
export const tableToolsetDefinition: ToolsetDefinition = {
  searchSources: TABLE_SEARCH_SOURCES,
  name: "table",
  load: (env) => tableToolset(loadTableSettings(env)),
};
