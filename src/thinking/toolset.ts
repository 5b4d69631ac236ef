/** The thinking toolset: sequential thinking that survives the process. */

import { THINKING_SEARCH_SOURCES } from "./search.ts";
import type { ToolsetDefinition } from "../tools/toolset.ts";
import { THINKING_ICONS } from "./icon.ts";
import { loadThinkingSettings } from "./settings.ts";
import { registerThinkingTools, THINKING_INSTRUCTIONS } from "./tools.ts";

/** The thinking toolset's entry in the toolset list. */
export const thinkingToolset: ToolsetDefinition = {
  searchSources: THINKING_SEARCH_SOURCES,
  name: "thinking",
  load: (env) => {
    const limits = loadThinkingSettings(env);
    return {
      name: "thinking",
      instructions: THINKING_INSTRUCTIONS,
      icons: THINKING_ICONS,
      register: (server, { kv }) => registerThinkingTools(server, { kv, limits }),
    };
  },
};
