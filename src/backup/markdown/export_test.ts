/**
 * The Markdown export over data written by every toolset's own tools: one file per record with
 * front matter, an index linking them, and a second export of unchanged data byte-identical.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { call, type McpClient, withMcpClient } from "../../../tests/support/mcp.ts";
import { exportMarkdown } from "./export.ts";

async function ok(client: McpClient, name: string, args: Record<string, unknown>) {
  const r = await call(client, name, args);
  assert.equal(r.isError, false, `${name}: ${r.text}`);
  return r.structured;
}

/** Every file under `dir` with its bytes, by relative path. */
async function snapshot(dir: string, base = dir, out = new Map<string, string>()) {
  for await (const e of Deno.readDir(dir)) {
    const path = join(dir, e.name);
    if (e.isDirectory) await snapshot(path, base, out);
    else out.set(path.slice(base.length + 1), await Deno.readTextFile(path));
  }
  return out;
}

Deno.test("the Markdown export reads right and is byte-identical on a second run", async () => {
  await withMcpClient({}, async ({ client, kv }) => {
    await ok(client, "set_north_star", { project_id: "acme/widget", text: "Ship the widget" });
    await ok(client, "set_focus", {
      project_id: "acme/widget",
      statement: "Fix the build",
      why: "CI is red",
    });
    await ok(client, "add_task", {
      project_id: "acme/widget",
      body: "Tidy the README",
      kind: "cleanup",
    });
    await ok(client, "handoff_save", {
      key: "design-notes",
      title: "Design notes",
      summary: "Where we are",
      conversation: "## User\nHow?\n\n## Assistant\nLike this.\n",
      from_ai: "Claude",
      tags: ["project:acme"],
    });
    await ok(client, "handoff_add_comment", {
      key: "design-notes",
      content: "Read it",
      author: "Ann",
    });
    const d = await ok(client, "create_discussion", { title: "Naming", body: "First idea" });
    const discussionId = String((d.discussion as { id?: string })?.id ?? d.discussion_id ?? d.id);
    await ok(client, "post_message", {
      discussion_id: discussionId,
      body: "Second idea",
      in_reply_to: 1,
    });
    await ok(client, "record_decision", { title: "Use KV", detail: "Deno KV it is" });
    await ok(client, "record_plan", { title: "The plan", body: "1. build\n2. ship" });
    await ok(client, "create_task", { title: "Write docs", detail: "All of them" });
    await ok(client, "sequentialthinking", {
      thought: "Think first",
      nextThoughtNeeded: true,
      thoughtNumber: 1,
      totalThoughts: 2,
    });

    const dir = await Deno.makeTempDir({ prefix: "md-" });
    try {
      const out = join(dir, "export");
      const count = await exportMarkdown(kv, out);
      const files = await snapshot(out);
      assert.equal(files.size, count);
      const paths = [...files.keys()].sort();
      assert.ok(paths.includes("index.md"));
      assert.ok(paths.includes("handoffs/design-notes.md"));
      assert.ok(
        paths.some((p) => /^projects\/acme_widget-[0-9a-f]{8}\.md$/.test(p)),
        paths.join(" "),
      );
      for (const kind of ["discussions", "decisions", "plans", "tasks"]) {
        assert.ok(
          paths.some((p) => p.startsWith("table/") && p.includes(`/${kind}/`)),
          `${kind}: ${paths.join(" ")}`,
        );
      }
      assert.ok(paths.some((p) => p.startsWith("thinking/")));
      const handoff = files.get("handoffs/design-notes.md")!;
      assert.match(
        handoff,
        /^---\nid: "design-notes"\nkind: "handoff"\ntitle: "Design notes"\nauthor: "Claude"\n/,
      );
      assert.match(handoff, /tags: \["project:acme"\]/);
      assert.match(
        handoff,
        /# Design notes\n\n> Where we are\n\n## User\nHow\?\n\n## Assistant\nLike this\.\n/,
      );
      assert.match(handoff, /## Comments\n\n### Ann · .*\n\nRead it\n/);
      const discussion = [...files].find(([p]) => p.includes("/discussions/"))![1];
      assert.match(discussion, /kind: "discussion"/);
      assert.match(
        discussion,
        /## #1 .* \(via \w+\) · .*\n\nFirst idea\n\n## #2 .*in reply to #1\n\nSecond idea\n/,
      );
      const project = [...files].find(([p]) => p.startsWith("projects/"))![1];
      assert.match(
        project,
        /## North star\n\nShip the widget\n\n## Focus\n\nFix the build\n\nWhy: CI is red\n\n## Follow-ups\n\n- \[ \] Tidy the README \(cleanup/,
      );
      const index = files.get("index.md")!;
      for (const p of paths.filter((p) => p !== "index.md")) {
        assert.ok(index.includes(`](${p})`), `index links ${p}`);
      }

      await exportMarkdown(kv, out);
      assert.deepEqual(await snapshot(out), files, "a second export is byte-identical");
      await Deno.writeTextFile(join(dir, "mine.txt"), "x");
      await assert.rejects(() => exportMarkdown(kv, dir), /not a Markdown export of this server/);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
});
