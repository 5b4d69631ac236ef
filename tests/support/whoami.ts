/** A test-only toolset with one tool that answers who called it, as tools see it. */

import { callerOf } from "../../src/mcp/caller.ts";
import type { Toolset } from "../../src/mcp/toolset.ts";
import type { Route } from "../../src/kit/web.ts";

/** A toolset whose `whoami` tool returns `callerOf(extra, deps)` as structured content. */
export function whoamiToolset(routes: Route[] = []): Toolset {
  return {
    name: "whoami",
    instructions: "whoami answers who is calling.",
    register(server, deps) {
      server.registerTool("whoami", { description: "Who is calling" }, (extra) => {
        const caller = callerOf(extra, deps);
        return {
          content: [{ type: "text", text: JSON.stringify(caller) }],
          structuredContent: { ...caller },
        };
      });
    },
    routes: () => routes,
  };
}
