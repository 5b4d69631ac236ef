/**
 * The official MCP conformance suite against the real server. Only the scenarios that apply to a
 * server without the suite's own `test_*` tools, prompts and resources are asserted here.
 */

import assert from "node:assert/strict";
import { ROOT, startServer } from "./support/harness.ts";

/** The suite's version; it needs a newer Node than this machine's, so Deno runs it. */
export const CONFORMANCE = "npm:@modelcontextprotocol/conformance@0.1.16";

/** Server scenarios that do not depend on the suite's fixtures, and must pass. */
const APPLICABLE = [
  "server-initialize",
  "ping",
  "tools-list",
  "logging-set-level",
  "resources-list",
  "prompts-list",
  "dns-rebinding-protection",
];

Deno.test({
  name: "the MCP conformance suite's applicable server scenarios pass",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const server = await startServer();
    try {
      const url = `${server.origin}/${server.token}/mcp`;
      for (const scenario of APPLICABLE) {
        await t.step(scenario, async () => {
          const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
            args: [
              "run",
              "--no-prompt",
              // Test tools are pinned in deno.test.lock; deno.lock holds only what the server runs.
              "--lock=deno.test.lock",
              "--allow-net=127.0.0.1,localhost,registry.npmjs.org",
              "--allow-env",
              "--allow-read",
              CONFORMANCE,
              "server",
              "--url",
              url,
              "--scenario",
              scenario,
            ],
            cwd: ROOT,
            env: { NO_COLOR: "1" },
          }).output();
          const out = new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr);
          const report = out.replaceAll(server.token, "<token>");
          assert.equal(code, 0, report);
          assert.match(out, /Passed:\s*\d+|passed/i, report);
          assert.doesNotMatch(out, /\b[1-9]\d* failed/, report);
        });
      }
    } finally {
      await server.close();
    }
  },
});
