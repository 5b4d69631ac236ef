/** The chat importer on ChatGPT exports: thread, re-import, bad input, parts and the limits. */

import assert from "node:assert/strict";
import { join } from "node:path";
import { loadHandoff } from "../../handoff/store_read.ts";
import { saveHandoff } from "../../handoff/store_save.ts";
import { handoffCountKey, handoffImportCountKey } from "../../handoff/store_schema.ts";
import { countCommits, withKv } from "../../../tests/support/kv.ts";
import { conversation, json, LIMITS, run, withDir } from "../../../tests/support/chat_import.ts";
import { gptConversation } from "../../../tests/support/chat_exports.ts";
import { zipBytes } from "./zip_write.ts";

Deno.test("ChatGPT sharded zip: the visible thread only, media named, hidden left out", async () => {
  await withDir(async (dir) => {
    const zip = join(dir, "export.zip");
    await Deno.writeFile(
      zip,
      await zipBytes([
        {
          name: "conversations-000.json",
          data: json([gptConversation("a", { branch: true, rich: true })]),
        },
        {
          name: "conversations-001.json",
          data: json([gptConversation("b", { title: null, noTimes: true })]),
        },
        { name: "user.json", data: json({ id: "user-1", email: "x@example.com" }) },
        { name: "file-cat.png", data: new Uint8Array([137, 80, 78, 71]) },
      ]),
    );
    await withKv(async (kv) => {
      const s = await run(kv, [zip]);
      assert.deepEqual([s.imported, s.updated, s.unchanged, s.skipped.length], [2, 0, 0, 0]);
      assert.equal(s.branchesLeftOut, 1);
      assert.equal(s.hiddenLeftOut, 3, "a's system message and thoughts, b's system message");
      assert.equal(s.ignored, 2);
      const a = await loadHandoff(kv, LIMITS, "chatgpt-a");
      assert.equal(a.handoff.fromAi, "ChatGPT");
      assert.deepEqual(a.handoff.tags, ["source:chatgpt"]);
      assert.equal(a.handoff.title, "Conversation a");
      assert.equal(a.handoff.createdAt, "2024-03-01T10:00:00.000Z");
      assert.match(a.handoff.summary, /1 abandoned branches left out/);
      const text = a.conversation;
      assert.doesNotMatch(text, /ABANDONED|SYSTEM PROMPT|SECRET THOUGHT/);
      assert.match(text, /^## User \(2024-03-01 10:02:00 UTC\)\n\nuser 1 of a\n/);
      assert.match(text, /\[image: file-cat\]\n\nwhat is this\?/);
      assert.match(text, /```python\nprint\(6\*7\)\n```/);
      assert.match(text, /\[tool output: 42\]/);
      assert.match(text, /\[unknown content type: hologram\]\nFUTURE/);
      assert.ok(text.indexOf("user 1 of a") < text.indexOf("assistant 2 of a"));
      const b = await loadHandoff(kv, LIMITS, "chatgpt-b");
      assert.equal(b.handoff.title, "user 1 of b", "a null title is made from the first prompt");
      assert.match(b.conversation, /^## User\n\nuser 1 of b/, "no time where the source has none");
    });
  });
});

Deno.test("ChatGPT: --keep-hidden keeps system messages and thoughts", async () => {
  await withDir(async (dir) => {
    await Deno.writeTextFile(join(dir, "c.json"), json([gptConversation("k", { rich: true })]));
    await withKv(async (kv) => {
      await run(kv, [join(dir, "c.json")], LIMITS, true);
      const text = await conversation(kv, "chatgpt-k");
      assert.match(text, /SYSTEM PROMPT/);
      assert.match(text, /SECRET THOUGHT/);
    });
  });
});

Deno.test("re-import writes nothing; a newer export updates only what grew", async () => {
  await withDir(async (dir) => {
    const file = join(dir, "conversations.json");
    const convs = ["a", "b", "c"].map((id) => gptConversation(id));
    await Deno.writeTextFile(file, json(convs));
    await withKv(async (kv) => {
      assert.equal((await run(kv, [file])).imported, 3);
      const commits = countCommits(kv);
      const again = await run(kv, [file]);
      assert.deepEqual([again.imported, again.updated, again.unchanged], [0, 0, 3]);
      assert.equal(commits.count(), 0, "a re-import commits nothing");
      const before = (await loadHandoff(kv, LIMITS, "chatgpt-a")).handoff;
      convs[1] = gptConversation("b", { turns: 3 });
      await Deno.writeTextFile(file, json(convs));
      const grown = await run(kv, [file]);
      assert.deepEqual([grown.imported, grown.updated, grown.unchanged], [0, 1, 2]);
      assert.match(await conversation(kv, "chatgpt-b"), /assistant 3 of b/);
      assert.equal((await loadHandoff(kv, LIMITS, "chatgpt-a")).handoff.order, before.order);
      assert.equal((await kv.get(handoffImportCountKey())).value, 3);
    });
  });
});

Deno.test("bad input: broken mappings skipped whole, bad shards named, the rest imported", async () => {
  await withDir(async (dir) => {
    const cycle = gptConversation("cyc");
    const mapping = cycle.mapping as Record<string, { parent: string | null }>;
    mapping["cyc-root"].parent = "cyc-a2";
    const dangling = gptConversation("dang");
    (dangling.mapping as Record<string, { parent: string | null }>)["dang-u1"].parent = "nowhere";
    await Deno.writeTextFile(
      join(dir, "conversations-000.json"),
      json([gptConversation("ok1"), cycle, dangling]),
    );
    // One malformed item between two good ones, then a shard cut short.
    const good = json(gptConversation("ok2"));
    await Deno.writeTextFile(
      join(dir, "conversations-001.json"),
      `[${good}, {"id": "bad", "mapping": {"x": tru}}, ${json(gptConversation("ok3"))}]`,
    );
    await Deno.writeTextFile(
      join(dir, "conversations-002.json"),
      `[${json(gptConversation("ok4"))}, ${json(gptConversation("cut")).slice(0, 200)}`,
    );
    await Deno.writeTextFile(join(dir, "notes.txt"), "hello");
    await withKv(async (kv) => {
      const s = await run(kv, [dir]);
      assert.equal(s.imported, 4, s.skipped.join("\n"));
      const all = s.skipped.join("\n");
      assert.match(all, /conversations-000\.json item 1 \(id cyc.*cycle.*skipped whole/);
      assert.match(all, /conversations-000\.json item 2 \(id dang.*dangling parent nowhere/);
      assert.match(all, /conversations-001\.json: item 1 is not valid JSON/);
      assert.match(all, /conversations-002\.json: truncated: the JSON ends inside item 1/);
      assert.equal(s.ignored, 1, "notes.txt is not an export, ignored in a folder");
      for (const bad of ["chatgpt-cyc", "chatgpt-dang", "chatgpt-cut"]) {
        assert.equal((await kv.get(["handoff", bad])).value, null, `${bad} never half written`);
      }
    });
  });
});

Deno.test("bad input: a file that is no export, and a truncated zip, are named", async () => {
  await withDir(async (dir) => {
    await Deno.writeTextFile(join(dir, "other.json"), json([{ hello: 1 }]));
    await Deno.writeTextFile(join(dir, "photo.jpg"), "\xff\xd8 binary");
    const bytes = await zipBytes([{
      name: "conversations.json",
      data: json([gptConversation("z")]),
    }]);
    await Deno.writeFile(join(dir, "cut.zip"), bytes.slice(0, bytes.length - 30));
    await withKv(async (kv) => {
      const s = await run(kv, [
        join(dir, "other.json"),
        join(dir, "photo.jpg"),
        join(dir, "cut.zip"),
      ]);
      const all = s.skipped.join("\n");
      assert.match(all, /other\.json: not a ChatGPT, Claude or Gemini export/);
      assert.match(all, /photo\.jpg: not JSON/);
      assert.match(all, /cut\.zip: zip: .*truncated/);
      assert.equal(s.imported, 0);
    });
  });
});

Deno.test("a conversation over the handoff limit is split into numbered parts that say so", async () => {
  await withDir(async (dir) => {
    const file = join(dir, "c.json");
    await Deno.writeTextFile(file, json([gptConversation("big", { turns: 6, pad: 1500 })]));
    const limits = { ...LIMITS, conversationMaxBytes: 4096 };
    await withKv(async (kv) => {
      const s = await run(kv, [file], limits);
      assert.equal(s.imported, 1, s.skipped.join("\n"));
      const keys = [];
      for await (const e of kv.list({ prefix: ["handoff"] })) {
        if (e.key.length === 2) keys.push(e.key[1]);
      }
      assert.ok(keys.length >= 2);
      assert.ok(keys.includes("chatgpt-big-part-2"));
      const part2 = await loadHandoff(kv, limits, "chatgpt-big-part-2");
      assert.match(part2.handoff.title, /\(part 2 of \d+\)/);
      assert.match(part2.conversation, /^_Part 2 of \d+ of one imported conversation/);
      let whole = "";
      for (const k of keys.sort()) whole += (await loadHandoff(kv, limits, String(k))).conversation;
      for (let i = 1; i <= 6; i++) assert.match(whole, new RegExp(`assistant ${i} of big`));
      // Imported again where it fits one handoff: the parts left from before are deleted.
      const again = await run(kv, [file]);
      assert.deepEqual([again.updated, again.skipped.length], [1, 0]);
      assert.equal((await kv.get(["handoff", "chatgpt-big-part-2"])).value, null);
      assert.doesNotMatch(await conversation(kv, "chatgpt-big"), /Part 1 of/);
      assert.equal((await kv.get(handoffImportCountKey())).value, 1);
    });
  });
});

Deno.test("imported handoffs are never evicted by HANDOFF_MAX_COUNT; their own limit stops an import", async () => {
  await withDir(async (dir) => {
    const file = join(dir, "c.json");
    await Deno.writeTextFile(file, json(["a", "b", "c"].map((id) => gptConversation(id))));
    const limits = { ...LIMITS, maxHandoffs: 2, importedMax: 2 };
    await withKv(async (kv) => {
      const s = await run(kv, [file], limits);
      assert.equal(s.imported, 2);
      assert.match(s.stopped ?? "", /stopped before .*item 2.*HANDOFF_IMPORTED_MAX_COUNT=2/);
      assert.equal((await kv.get(["handoff", "chatgpt-c"])).value, null);
      for (let i = 0; i < 3; i++) {
        await saveHandoff(kv, limits, {
          key: `own-${i}`,
          summary: "s",
          conversation: "## User\nx",
        });
      }
      assert.notEqual((await kv.get(["handoff", "chatgpt-a"])).value, null, "never evicted");
      assert.notEqual((await kv.get(["handoff", "chatgpt-b"])).value, null);
      assert.equal((await kv.get(["handoff", "own-0"])).value, null, "the saved one was evicted");
      assert.equal((await kv.get(handoffCountKey())).value, 2);
      assert.equal((await kv.get(handoffImportCountKey())).value, 2);
    });
  });
});

Deno.test("a key taken by a handoff that was not imported is left as it is", async () => {
  await withDir(async (dir) => {
    const file = join(dir, "c.json");
    await Deno.writeTextFile(file, json([gptConversation("mine")]));
    await withKv(async (kv) => {
      await saveHandoff(kv, LIMITS, {
        key: "chatgpt-mine",
        summary: "s",
        conversation: "## User\nx",
      });
      const s = await run(kv, [file]);
      assert.match(s.skipped.join("\n"), /taken by a handoff that was not imported/);
      assert.equal(await conversation(kv, "chatgpt-mine"), "## User\nx");
    });
  });
});
