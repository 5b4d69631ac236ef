import assert from "node:assert/strict";
import { MCP_APP_MIME } from "../tools/apps.ts";
import { HANDOFF_LIST_VIEW_URI } from "./context.ts";
import { SAVE } from "../../tests/support/handoff_tools.ts";
import { call, withMcpClient } from "../../tests/support/mcp.ts";

Deno.test("handoff tools are listed with titles, annotations, schemas and the list view", async () => {
  await withMcpClient({ toolsets: "handoff" }, async ({ client }) => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name).sort();
    assert.deepEqual(names, [
      "handoff_add_comment",
      "handoff_append",
      "handoff_clear",
      "handoff_delete_comment",
      "handoff_list",
      "handoff_load",
      "handoff_merge",
      "handoff_save",
      "handoff_search",
      "handoff_stats",
    ]);
    for (const tool of tools) {
      assert.ok(tool.title, `${tool.name} has a title`);
      assert.ok((tool.description ?? "").length > 60, `${tool.name} says when to call it`);
      assert.equal(tool.annotations?.openWorldHint, false);
      for (const [field, schema] of Object.entries(tool.inputSchema.properties ?? {})) {
        assert.ok((schema as { description?: string }).description, `${tool.name}.${field}`);
      }
    }
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    for (const name of ["handoff_list", "handoff_load", "handoff_search", "handoff_stats"]) {
      assert.ok(byName[name].outputSchema, `${name} has an output schema`);
      assert.equal(byName[name].annotations?.readOnlyHint, true);
    }
    assert.equal(byName.handoff_clear.annotations?.destructiveHint, true);
    assert.match(byName.handoff_save.description!, /VERBATIM/);
    assert.match(byName.handoff_save.description!, /never summarise or shorten/);
    const ui = byName.handoff_list._meta?.ui as { resourceUri?: string };
    assert.equal(ui.resourceUri, HANDOFF_LIST_VIEW_URI);
    const view = await client.readResource({ uri: HANDOFF_LIST_VIEW_URI });
    assert.equal(view.contents[0].mimeType, MCP_APP_MIME);
    const html = String((view.contents[0] as { text?: string }).text);
    assert.match(html, /^<!doctype html>/i);
    assert.doesNotMatch(html, /<script[^>]+src=|<link[^>]+href=|https?:\/\//i, "self-contained");
  });
});

Deno.test("list, search, stats, comments, merge and clear through MCP", async () => {
  await withMcpClient({ toolsets: "handoff" }, async ({ client }) => {
    await call(client, "handoff_save", SAVE);
    await call(client, "handoff_save", {
      key: "other",
      summary: "Other topic",
      conversation: "## User\nsomething about Leases\n",
      tags: ["web"],
      status: "pending",
    });
    const list = await call(client, "handoff_list", {});
    const keys = (list.structured?.handoffs as { key: string }[]).map((h) => h.key);
    assert.deepEqual(keys, ["other", "design"]);
    assert.ok(!JSON.stringify(list.structured).includes("chunks under a manifest"));
    const found = await call(client, "handoff_search", { query: "LEASES" });
    assert.deepEqual((found.structured?.handoffs as { key: string }[]).map((h) => h.key), [
      "other",
    ]);
    const comment = await call(client, "handoff_add_comment", {
      key: "design",
      content: "check eviction",
      author: "Claude Code",
    });
    assert.equal(comment.structured?.comment_count, 1);
    const merged = await call(client, "handoff_merge", {
      keys: ["design", "other"],
      new_key: "both",
      delete_sources: true,
    });
    assert.equal(merged.isError, false, merged.text);
    assert.deepEqual(merged.structured?.deleted_sources, ["design", "other"]);
    const stats = await call(client, "handoff_stats");
    assert.equal(stats.structured?.count, 1);
    assert.equal(stats.structured?.total_comments, 1);
    assert.equal((stats.structured?.limits as Record<string, unknown>).max_handoffs, 1000);
    const deleted = await call(client, "handoff_clear", { confirm: "DELETE ALL" });
    assert.match(deleted.text, /deleted all 1 handoffs/);
    const empty = await call(client, "handoff_list", {});
    assert.match(empty.text, /No handoffs saved yet/);
  });
});

Deno.test("handoff tools ignore unknown argument names, never obeying them, and name them", async () => {
  await withMcpClient({ toolsets: "handoff" }, async ({ client }) => {
    const saved = await call(client, "handoff_save", {
      ...SAVE,
      fromAi: "Claude",
      tag: "x",
      wait_for_previous: true,
    });
    assert.equal(saved.isError, false, saved.text);
    assert.deepEqual(saved.structured.ignored_arguments, ["fromAi", "tag"]);
    assert.match(saved.text, /Ignored arguments "fromAi", "tag": .*accepted: key, title, summary/);
    const stats = await call(client, "handoff_stats", { verbose: true });
    assert.equal(stats.isError, false, stats.text);
    assert.match(stats.text, /Ignored argument "verbose": .*\(accepted: none\)/);
    const list = await call(client, "handoff_list");
    const [only] = list.structured.handoffs as { tags: string[] }[];
    assert.ok(!only.tags.includes("x"), "the ignored tag was not obeyed");
  });
});
