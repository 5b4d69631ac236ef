/** The memory toolset: a durable, multi-process drop-in for the official knowledge-graph server. */

import type { ToolsetDefinition } from "../tools/toolset.ts";
import { MEMORY_ICONS } from "./icon.ts";
import { loadMemorySettings } from "./settings.ts";
import { MEMORY_INSTRUCTIONS, registerMemoryTools } from "./tools.ts";

/**
 * The memory toolset's entry in the toolset list. Off unless named (`TOOLSETS` or `?toolsets=`):
 * its nine tools would crowd every client that never asked for a graph.
 */
export const memoryToolset: ToolsetDefinition = {
  name: "memory",
  byDefault: false,
  load: (env) => {
    const settings = loadMemorySettings(env);
    return {
      name: "memory",
      instructions: MEMORY_INSTRUCTIONS,
      icons: MEMORY_ICONS,
      register: (server, deps) => registerMemoryTools(server, deps, settings),
    };
  },
};
