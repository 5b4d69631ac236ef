/** The Claude and Gemini importers on generated exports in each vendor's shape. */

import assert from "node:assert/strict";
import { join } from "node:path";
import { loadHandoff } from "../../handoff/store_read.ts";
import { withKv } from "../../../tests/support/kv.ts";
import { claudeExport, geminiActivity } from "../../../tests/support/chat_exports.ts";
import { conversation, json, LIMITS, run, withDir } from "../../../tests/support/chat_import.ts";
import { importChats } from "./importer.ts";
import { loadImportOptions } from "./model.ts";
import { sourcesOf } from "./sources.ts";

Deno.test("Claude: thread from the current leaf, attachments fenced, project tag, project and memory notes", async () => {
  await withDir(async (dir) => {
    const e = claudeExport();
    await Deno.writeTextFile(join(dir, "conversations.json"), json(e.conversations));
    await Deno.writeTextFile(join(dir, "projects.json"), json(e.projects));
    await Deno.writeTextFile(join(dir, "memories.json"), json(e.memories));
    await withKv(async (kv) => {
      const s = await run(kv, [dir]);
      assert.deepEqual([s.imported, s.skipped.length, s.branchesLeftOut], [4, 0, 1]);
      const c1 = await loadHandoff(kv, LIMITS, "claude-c1");
      assert.deepEqual(c1.handoff.tags, ["source:claude", "project:home-garden"]);
      assert.equal(c1.handoff.fromAi, "Claude");
      const text = c1.conversation;
      assert.doesNotMatch(text, /ABANDONED|SECRET THINKING/);
      assert.match(text, /\[file: soil\.txt\]\n~~~\npH 6\.5\n```\nloam\n~~~/);
      assert.match(text, /\[image: garden\.png\]/);
      assert.match(text, /\[tool call web_search: \{"q":"tomato"\}\]/);
      assert.match(text, /\[tool result web_search: found\]/);
      assert.match(text, /\[unknown content type: sparkle\]/);
      assert.match(text, /## Assistant \(2024-04-02 09:00:00 UTC\)\n\nTomatoes/);
      assert.match(text, /## User[^\n]*\n\nThanks/);
      const c2 = await loadHandoff(kv, LIMITS, "claude-c2");
      assert.equal(c2.handoff.title, "Linear question");
      assert.match(c2.conversation, /Linear question[\s\S]*Linear answer/);
      const project = await loadHandoff(kv, LIMITS, "claude-project-p1");
      assert.match(project.conversation, /Be brief\.[\s\S]*\[file: plan\.md\][\s\S]*Beds A and B/);
      assert.ok(project.handoff.tags.includes("project:home-garden"));
      const memory = await loadHandoff(kv, LIMITS, "claude-memory");
      assert.match(
        memory.conversation,
        /The user gardens\.[\s\S]*Project Home & Garden\n\nRaised beds\./,
      );
    });
  });
});

Deno.test("Claude: a dangling parent skips the conversation whole; an all-hidden one is named", async () => {
  await withDir(async (dir) => {
    const e = claudeExport();
    const broken = structuredClone(e.conversations[0]) as Record<string, unknown>;
    broken.uuid = "broken";
    (broken.chat_messages as Record<string, unknown>[])[2].parent_message_uuid = "gone";
    const thinking = {
      uuid: "quiet",
      name: "Only thinking",
      chat_messages: [{
        uuid: "q1",
        sender: "assistant",
        content: [{ type: "thinking", thinking: "hm" }],
      }],
    };
    await Deno.writeTextFile(
      join(dir, "conversations.json"),
      json([broken, thinking, e.conversations[1]]),
    );
    await withKv(async (kv) => {
      const s = await run(kv, [join(dir, "conversations.json")]);
      assert.equal(s.imported, 1);
      const all = s.skipped.join("\n");
      assert.match(
        all,
        /item 0 \(id broken, "Planning the garden"\): message m3 has a dangling parent gone; skipped whole/,
      );
      assert.match(all, /item 1 \(id quiet.*no visible messages \(1 hidden left out/);
      assert.equal((await kv.get(["handoff", "claude-broken"])).value, null);
    });
  });
});

Deno.test("Gemini: activity grouped by the time gap across days, HTML as Markdown", async () => {
  await withDir(async (dir) => {
    await Deno.writeTextFile(join(dir, "MyActivity.json"), json(geminiActivity(3)));
    await withKv(async (kv) => {
      const s = await run(kv, [join(dir, "MyActivity.json")]);
      assert.equal(s.imported, 3, s.skipped.join("\n"));
      assert.ok(s.lines.some((l) => /3 activity entries that are not Gemini prompts/.test(l)));
      const list = [];
      for await (const e of kv.list<{ key: string; title: string }>({ prefix: ["handoff"] })) {
        if (e.key.length === 2) list.push(e.value);
      }
      const day1 = list.find((h) => h.title === "day 1 question 1")!;
      const text = await conversation(kv, day1.key);
      assert.match(
        text,
        /^## User \(2024-06-02 08:00:00 UTC\)\n\nday 1 question 1\n\n## Assistant[^\n]*\n\nAnswer \*\*1\.1\*\* & more\n\n- one\n\n## User \(2024-06-02 08:05:00 UTC\)\n\nday 1 question 2/,
      );
      const again = await run(kv, [join(dir, "MyActivity.json")]);
      assert.equal(again.unchanged, 3, "the keys (first turns) are stable");
    });
  });
});

Deno.test("settings: CHATS_GEMINI_GAP_MINUTES and CHATS_ITEM_MAX_BYTES, bad values named", () => {
  const o = loadImportOptions(new Map([["CHATS_GEMINI_GAP_MINUTES", "5"]]));
  assert.equal(o.geminiGapMinutes, 5);
  assert.equal(o.itemMaxBytes, 256 * 1024 * 1024);
  assert.throws(
    () => loadImportOptions(new Map([["CHATS_GEMINI_GAP_MINUTES", "0"]])),
    /CHATS_GEMINI_GAP_MINUTES must be a whole number from 1/,
  );
});

Deno.test("Gemini: a shorter gap splits one day's prompts into two conversations", async () => {
  await withDir(async (dir) => {
    await Deno.writeTextFile(join(dir, "MyActivity.json"), json(geminiActivity(1)));
    await withKv(async (kv) => {
      const lines: string[] = [];
      const { sources } = await sourcesOf([join(dir, "MyActivity.json")]);
      const options = loadImportOptions(new Map([["CHATS_GEMINI_GAP_MINUTES", "4"]]));
      const s = await importChats(
        { kv, limits: LIMITS, report: (l) => lines.push(l) },
        sources,
        options,
      );
      assert.equal(s.imported, 2, "5 minutes apart, over a 4-minute gap");
    });
  });
});
