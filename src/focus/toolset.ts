/** The focus toolset: a project's north star, its one focus, and demoted follow-ups. */

import { FOCUS_SEARCH_SOURCES } from "./search.ts";
import type { ToolsetDefinition } from "../tools/toolset.ts";
import { FOCUS_ICONS } from "./icon.ts";
import { loadFocusSettings } from "./settings.ts";
import { migrateLegacyFollowUps } from "./store_migrate.ts";
import { FOCUS_INSTRUCTIONS, registerFocusTools } from "./tools.ts";

/** The focus toolset's entry in the toolset list. */
export const focusToolset: ToolsetDefinition = {
  searchSources: FOCUS_SEARCH_SOURCES,
  name: "focus",
  load: (env) => {
    const limits = loadFocusSettings(env);
    return {
      name: "focus",
      instructions: FOCUS_INSTRUCTIONS,
      icons: FOCUS_ICONS,
      register: (server, { kv, notices }) => registerFocusTools(server, { kv, limits, notices }),
      // Databases from before the follow-up blocks are moved into them once, at start.
      prepare: async (kv) => void await migrateLegacyFollowUps(kv),
    };
  },
};
