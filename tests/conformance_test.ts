/**
 * The official MCP conformance suite against the real server. Only the scenarios that apply to a
 * server without the suite's own `test_*` tools, prompts and resources are asserted here.
 */

import assert from "node:assert/strict";
import { ROOT, startServer } from "./support/harness.ts";

/** The suite's version; it needs a newer Node than this machine's, so Deno runs it. */
export const CONFORMANCE = "npm:@modelcontextprotocol/conformance@0.1.16";

/** The first suite with 2026-07-28 scenarios (a pre-release: 0.1.x has none). */
export const CONFORMANCE_2026 = "npm:@modelcontextprotocol/conformance@0.2.0-alpha.12";

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

/**
 * The same under 2026-07-28 (`--spec-version 2026-07-28`), with its own scenarios: stateless
 * serving, cache fields, header checks, unknown resources. `server-stateless` has checks that
 * need the suite's diagnostic tools (`test_logging_tool`, …); the suite reports those "Not
 * testable", and only those may fail.
 */
const APPLICABLE_2026 = [
  "server-stateless",
  "caching",
  "http-header-validation",
  "tools-list",
  "resources-list",
  "prompts-list",
  "dns-rebinding-protection",
  "sep-2164-resource-not-found",
];

/** Runs one scenario of `suite` against `url`; returns its exit code and output. */
async function runScenario(suite: string, url: string, scenario: string, extra: string[] = []) {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-prompt",
      // Test tools are pinned in deno.test.lock; deno.lock holds only what the server runs.
      "--lock=deno.test.lock",
      "--allow-net=127.0.0.1,localhost,registry.npmjs.org",
      "--allow-env",
      "--allow-read",
      suite,
      "server",
      "--url",
      url,
      "--scenario",
      scenario,
      ...extra,
    ],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
  }).output();
  return { code, out: new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr) };
}

/** Runs `check` as one step per scenario against a fresh server; `hide` masks its token. */
async function eachScenario(
  t: Deno.TestContext,
  scenarios: readonly string[],
  check: (url: string, scenario: string, hide: (text: string) => string) => Promise<void>,
): Promise<void> {
  const server = await startServer();
  try {
    const url = `${server.origin}/${server.token}/mcp`;
    const hide = (text: string) => text.replaceAll(server.token, "<token>");
    for (const scenario of scenarios) {
      await t.step(scenario, () => check(url, scenario, hide));
    }
  } finally {
    await server.close();
  }
}

Deno.test({
  name: "the MCP conformance suite's applicable server scenarios pass",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: (t) =>
    eachScenario(t, APPLICABLE, async (url, scenario, hide) => {
      const { code, out } = await runScenario(CONFORMANCE, url, scenario);
      const report = hide(out);
      assert.equal(code, 0, report);
      assert.match(out, /Passed:\s*\d+|passed/i, report);
      assert.doesNotMatch(out, /\b[1-9]\d* failed/, report);
    }),
});

Deno.test({
  name: "the MCP conformance suite's applicable 2026-07-28 server scenarios pass",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: (t) =>
    eachScenario(t, APPLICABLE_2026, async (url, scenario, hide) => {
      const { out } = await runScenario(CONFORMANCE_2026, url, scenario, [
        "--spec-version",
        "2026-07-28",
        "--verbose",
      ]);
      const report = hide(out);
      const failed = [...out.matchAll(/"status": "FAILURE"/g)].length;
      const untestable = [...out.matchAll(/"errorMessage": "Not testable: /g)].length;
      assert.match(out, /"status": "SUCCESS"/, report);
      assert.equal(failed, untestable, report);
    }),
});
