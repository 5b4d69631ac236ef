/**
 * The search toolset: `search` and `fetch` over every kind the other toolsets declare
 * (`SearchSource`s, handed over by `src/toolsets.ts`), and the background folder.
 */

import { setSearchIndexing } from "../kit/search_source.ts";
import type { SearchSource } from "../kit/search_source.ts";
import type { ToolsetDefinition } from "../tools/toolset.ts";
import { SEARCH_ICONS } from "./icon.ts";
import { loadSearchSettings } from "./settings.ts";
import { baseUrl, registerSearchTools } from "./tools.ts";

const INSTRUCTIONS =
  "search finds anything kept here by its words, ranked; fetch reads one result by id.";

/** The search toolset over `sources` (one per kind, from every toolset). */
export function searchToolsetDefinition(sources: readonly SearchSource[]): ToolsetDefinition {
  const byKind = new Map(sources.map((s) => [s.kind, s]));
  return {
    name: "search",
    load: (env) => {
      const settings = loadSearchSettings(env);
      setSearchIndexing(settings.enabled);
      return {
        name: "search",
        instructions: INSTRUCTIONS,
        icons: SEARCH_ICONS,
        register: (server, deps) =>
          registerSearchTools(server, {
            sources: byKind,
            settings,
            kv: deps.kv,
            base: baseUrl(deps),
          }),
      };
    },
  };
}
