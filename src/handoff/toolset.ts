/** The handoff toolset: whole conversations saved in one client and loaded in another. */

import { HANDOFF_SEARCH_SOURCES } from "./search.ts";
import type { ToolsetDefinition } from "../tools/toolset.ts";
import { handoffApiRoutes } from "./api.ts";
import { HANDOFF_ICONS } from "./icon.ts";
import { loadHandoffSettings } from "./settings.ts";
import { HANDOFF_INSTRUCTIONS, registerHandoffTools } from "./tools.ts";

/** The handoff toolset's entry in the toolset list; its JSON API is its routes. */
export const handoffToolset: ToolsetDefinition = {
  searchSources: HANDOFF_SEARCH_SOURCES,
  name: "handoff",
  load: (env) => {
    const settings = loadHandoffSettings(env);
    return {
      name: "handoff",
      instructions: HANDOFF_INSTRUCTIONS,
      icons: HANDOFF_ICONS,
      register: (server, { kv }) => registerHandoffTools(server, { kv, ...settings }),
      routes: ({ kv, config }) =>
        handoffApiRoutes({ kv, ...settings, maxRequestBytes: config.maxRequestBytes }),
    };
  },
};
