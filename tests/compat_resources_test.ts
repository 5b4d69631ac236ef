/**
 * Resources that appear after a client connected: Gemini CLI lists `resources/list` once at
 * connect and reads only what it listed, so over stdio (a session that can carry notifications)
 * the server's `notifications/resources/list_changed` is what lets it read a project created later.
 */

import assert from "node:assert/strict";
import { installClients } from "./support/clients.ts";
import { runCase } from "./support/compat_case.ts";

const clients = await installClients();
if ("skip" in clients) console.warn(clients.skip);

const NORTH_STAR = "Created after the client connected";

Deno.test({
  name:
    "compat: gemini over stdio reads the state resource of a project created after it connected",
  ignore: "skip" in clients,
  async fn() {
    if ("skip" in clients) return;
    const outcome = await runCase(clients, "gemini", "stdio", () => [
      { tool: "set_north_star", args: { project_id: "later", text: NORTH_STAR } },
      { tool: "list_mcp_resources", args: {} },
      { tool: "read_mcp_resource", args: { uri: "handoff://projects/later/state" } },
    ]);
    const results = outcome.stub.toolResults();
    const read = results.find((r) => r.tool === "read_mcp_resource");
    assert.ok(read, `the model never got read_mcp_resource's result: ${JSON.stringify(results)}`);
    assert.ok(
      !read.isError && read.text.includes(NORTH_STAR),
      `Gemini CLI could not read the new project's state:\n${read.text}\nlisted:\n${
        results.find((r) => r.tool === "list_mcp_resources")?.text
      }`,
    );
  },
});
