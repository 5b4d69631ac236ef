/**
 * The result budget (issue 24) on the table's tools and its discussion resource: each fed 5× a
 * small RESULT_MAX_TOKENS returns pages within it that read on to the end, each row once; and
 * the unread discussions named in get_workspace_context.
 */

import assert from "node:assert/strict";
import { estimateTokens } from "../src/kit/budget.ts";
import { createDiscussion, postMessage } from "../src/table/store_discussions.ts";
import { tableCtx } from "../src/table/store_common.ts";
import { loadTableSettings } from "../src/table/settings.ts";
import { discussionUri } from "../src/table/tools_resources.ts";
import { CODEX } from "./support/table_mcp.ts";
import { call, withMcpClient } from "./support/mcp.ts";
import { mixedText, readAllPages } from "./support/pages.ts";

/** A small budget keeps the payloads of these tests small: 5× it is about 20 KB. */
const BUDGET = 1000;
const ENV = { RESULT_MAX_TOKENS: String(BUDGET) };

/** A discussion of `bodies` posted by codex through the store (the writes are not under test). */
async function seedDiscussion(kv: Deno.Kv, bodies: string[]): Promise<string> {
  const ctx = tableCtx(kv, loadTableSettings(new Map()));
  const { discussion } = await createDiscussion(ctx, CODEX, { title: "Long", body: bodies[0] });
  for (const body of bodies.slice(1)) {
    await postMessage(ctx, CODEX, { discussion_id: discussion.id, body });
  }
  return discussion.id;
}

Deno.test("get_discussion pages messages 5× the budget, cutting a long one inside, and they join back exactly", async () => {
  await withMcpClient({ toolsets: "table", env: ENV }, async ({ client, kv }) => {
    const bodies = Array.from({ length: 40 }, (_, i) => mixedText(100, i));
    bodies.splice(7, 0, mixedText(1500, 2)); // longer than a page
    const id = await seedDiscussion(kv, bodies);
    const pages = await readAllPages(
      client,
      "get_discussion",
      { discussion_id: id, limit: 200 },
      (p) =>
        p.structured.has_more
          ? { after_seq: p.structured.next_after_seq, from_char: p.structured.next_from_char }
          : null,
      BUDGET,
    );
    assert.ok(pages.length >= 5, `${pages.length} pages`);
    const joined = new Map<number, string>();
    for (const p of pages) {
      for (const m of p.structured.messages as { seq: number; body: string }[]) {
        joined.set(m.seq, (joined.get(m.seq) ?? "") + m.body);
      }
    }
    assert.deepEqual([...joined.keys()], bodies.map((_, i) => i + 1));
    assert.deepEqual([...joined.values()], bodies);
    assert.ok(pages.some((p) => typeof p.structured.next_from_char === "number"));
    for (const p of pages.filter((p) => p.structured.has_more)) {
      assert.ok(p.text.includes(`after_seq=${p.structured.next_after_seq}`), p.text);
    }
  });
});

Deno.test("get_discussion moves the read position only to the last message a cut page showed whole", async () => {
  await withMcpClient({ toolsets: "table", env: ENV }, async ({ client, kv }) => {
    const id = await seedDiscussion(kv, Array.from({ length: 20 }, (_, i) => mixedText(300, i)));
    const first = await call(client, "get_discussion", { discussion_id: id, limit: 200 });
    assert.equal(first.structured.has_more, true);
    const shown = first.structured.messages as { seq: number }[];
    assert.ok(shown.length < 20);
    const unread = await call(client, "get_discussion", { discussion_id: id, unread_only: true });
    const next = (unread.structured.messages as { seq: number }[])[0].seq;
    assert.equal(next, shown.at(-1)!.seq + 1);
    assert.equal(unread.structured.unread_before, 20 - shown.length);
  });
});

Deno.test("get_workspace_context names the discussions unread for you, bounded by limit, with the totals", async () => {
  await withMcpClient({ toolsets: "table" }, async ({ client, kv }) => {
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push(await seedDiscussion(kv, ["one", "two", "three"]));
    await call(client, "get_discussion", { discussion_id: ids[1] }); // read to the end
    const all = await call(client, "get_workspace_context", {});
    const unread = (all.structured.open_items as { unread: Record<string, unknown> }).unread;
    assert.equal(unread.discussions, 2);
    assert.equal(unread.messages, 6);
    assert.deepEqual(unread.items, [
      { id: ids[2], title: "Long", unread: 3 },
      { id: ids[0], title: "Long", unread: 3 },
    ]);
    assert.equal(unread.has_more, false);
    assert.ok(all.text.includes(`- ${ids[2]} "Long" · 3 unread`), all.text);
    assert.ok(
      (all.structured.untrusted as { fields: string[] }).fields.includes(
        "open_items.unread.items[].title",
      ),
    );
    const one = await call(client, "get_workspace_context", { limit: 1 });
    const cut = (one.structured.open_items as { unread: Record<string, unknown> }).unread;
    assert.equal((cut.items as unknown[]).length, 1);
    assert.equal(cut.has_more, true);
    assert.equal(cut.discussions, 2);
    assert.match(one.text, /… and 1 more \(raise limit\)/);
  });
});

Deno.test("get_workspace_context 5× the budget shows fewer rows of each list and names what it cut", async () => {
  await withMcpClient(
    { toolsets: "table", env: { RESULT_MAX_TOKENS: "2000" } },
    async ({ client, kv }) => {
      // The context's fixed parts (who you are, the untrusted notice) take about 900 tokens.
      const ctx = tableCtx(kv, loadTableSettings(new Map()));
      for (let i = 0; i < 60; i++) {
        const title = `${i} ${"議論の題名".repeat(19)}`;
        await createDiscussion(ctx, CODEX, { title, body: "b" });
      }
      const [page] = await readAllPages(
        client,
        "get_workspace_context",
        { limit: 200 },
        () => null,
        2000,
      );
      const c = page.structured as { discussions: unknown[]; has_more: boolean; notes: string[] };
      const unread = (page.structured.open_items as { unread: Record<string, unknown> }).unread;
      assert.ok(c.discussions.length < 60);
      assert.equal(c.has_more, true);
      assert.equal(unread.discussions, 60);
      assert.equal(unread.has_more, true);
      const note = c.notes.find((n) => n.startsWith("Cut to fit RESULT_MAX_TOKENS"));
      assert.ok(note, c.notes.join("\n"));
      assert.match(note, /unread shows \d+ of 60: get_discussion with unread_only=true/);
      assert.ok(page.text.includes(note.replace(/^Cut/, "").slice(0, 40)));
    },
  );
});

Deno.test("get_decisions and get_tasks page rows 5× the budget by after_id, each row exactly once", async () => {
  await withMcpClient({ toolsets: "table", env: ENV }, async ({ client }) => {
    const details = Array.from({ length: 40 }, (_, i) => mixedText(150, i));
    for (const [i, detail] of details.entries()) {
      const d = await call(client, "record_decision", { title: `d${i}`, detail });
      assert.equal(d.isError, false, d.text);
      const t = await call(client, "create_task", { title: `t${i}`, detail });
      assert.equal(t.isError, false, t.text);
    }
    for (const [tool, key] of [["get_decisions", "decisions"], ["get_tasks", "tasks"]]) {
      const pages = await readAllPages(
        client,
        tool,
        { limit: 200 },
        (p) => p.structured.has_more ? { after_id: p.structured.next_after_id } : null,
        BUDGET,
      );
      assert.ok(pages.length >= 5, `${tool}: ${pages.length} pages`);
      const rows = pages.flatMap((p) => p.structured[key] as { title: string; detail: string }[]);
      // Newest first: the last one recorded comes first.
      assert.deepEqual(rows.map((r) => r.detail), [...details].reverse());
      assert.equal(new Set(rows.map((r) => r.title)).size, 40);
      for (const p of pages.filter((p) => p.structured.has_more)) {
        assert.ok(p.text.includes(`after_id "${p.structured.next_after_id}"`), p.text);
      }
    }
  });
});

Deno.test("the discussion resource 5× the budget keeps the newest messages that fit and says how to read the rest", async () => {
  await withMcpClient({ toolsets: "table", env: ENV }, async ({ client, kv }) => {
    const bodies = Array.from({ length: 40 }, (_, i) => `message ${i + 1}: ${mixedText(120, i)}`);
    const id = await seedDiscussion(kv, bodies);
    const ws = loadTableSettings(new Map()).defaultWorkspace;
    const read = await client.readResource({ uri: discussionUri(ws, id) });
    const text = (read.contents[0] as { text: string }).text;
    assert.ok(estimateTokens(text) <= BUDGET, `${estimateTokens(text)}`);
    const first = Number(text.match(/Earlier messages \(seq 1–(\d+)\)/)?.[1]) + 1;
    assert.ok(first > 1 && first < 40, text.slice(0, 300));
    for (let seq = first; seq <= 40; seq++) assert.ok(text.includes(bodies[seq - 1]), `${seq}`);
    assert.ok(!text.includes(bodies[first - 2]));
    // Reading the resource moves the position to the latest message, as it always has.
    const unread = await call(client, "get_discussion", { discussion_id: id, unread_only: true });
    assert.deepEqual(unread.structured.messages, []);
  });
});

Deno.test("get_participants pages participants 5× the budget by after_name, each once", async () => {
  await withMcpClient({ toolsets: "table", env: ENV }, async ({ client, kv }) => {
    const ctx = tableCtx(kv, loadTableSettings(new Map()));
    const { discussion } = await createDiscussion(ctx, CODEX, { title: "All hands" });
    const names = Array.from({ length: 120 }, (_, i) => `参加者${i}-${"名前".repeat(12)}`);
    for (const name of names) {
      await postMessage(ctx, { name, via: "token" }, { discussion_id: discussion.id, body: "hi" });
    }
    const pages = await readAllPages(
      client,
      "get_participants",
      { limit: 200 },
      (p) => p.structured.has_more ? { after_name: p.structured.next_after_name } : null,
      BUDGET,
    );
    assert.ok(pages.length >= 5, `${pages.length} pages`);
    const seen = pages.flatMap((p) => (p.structured.participants as { name: string }[]))
      .map((p) => p.name);
    assert.deepEqual([...seen].sort(), [...names, "codex"].sort());
    const unknown = await call(client, "get_participants", { after_name: "nobody" });
    assert.equal(unknown.isError, true);
    assert.match(unknown.text, /after_name "nobody" is not a participant/);
  });
});

Deno.test("a write whose echo is over the budget still answers its success (its write landed)", async () => {
  await withMcpClient({ toolsets: "table", env: ENV }, async ({ client }) => {
    const created = await call(client, "create_discussion", { title: "T" });
    const id = (created.structured.discussion as { id: string }).id;
    const body = mixedText(1500, 1); // the echo of its own message is over 1,000 tokens
    const posted = await call(client, "post_message", { discussion_id: id, body });
    assert.equal(posted.isError, false, posted.text);
    assert.match(posted.text, /^⚠ UNTRUSTED DATA \S+ in this result[\s\S]*Posted seq 1/);
    // Read in pages, the message is there once.
    const pages = await readAllPages(
      client,
      "get_discussion",
      { discussion_id: id },
      (p) =>
        p.structured.has_more
          ? { after_seq: p.structured.next_after_seq, from_char: p.structured.next_from_char }
          : null,
      BUDGET,
    );
    const joined = pages.flatMap((p) => p.structured.messages as { body: string }[])
      .map((m) => m.body).join("");
    assert.equal(joined, body);
  });
});

Deno.test("get_discussion cuts a message of emoji only between characters, never inside one", async () => {
  // Characters bind here (an emoji is one token but two UTF-16 units), so a cut may fall
  // between the two halves of one: it must move past it.
  const budget = { tokens: 1_000_000, chars: 4_000 };
  const env = { RESULT_MAX_TOKENS: "1000000", RESULT_MAX_CHARS: "4000" };
  await withMcpClient({ toolsets: "table", env }, async ({ client, kv }) => {
    const body = "🚀🧪".repeat(3000); // 12,000 UTF-16 units, 24,000 bytes
    const id = await seedDiscussion(kv, ["first", body]);
    const pages = await readAllPages(
      client,
      "get_discussion",
      { discussion_id: id },
      (p) =>
        p.structured.has_more
          ? { after_seq: p.structured.next_after_seq, from_char: p.structured.next_from_char }
          : null,
      budget,
    );
    const parts = pages.flatMap((p) => p.structured.messages as { seq: number; body: string }[])
      .filter((m) => m.seq === 2).map((m) => m.body);
    assert.ok(parts.length >= 3, `${parts.length} parts`);
    assert.ok(parts.every((p) => p.isWellFormed()), "no part ends or starts inside an emoji");
    assert.equal(parts.join(""), body);
  });
});
