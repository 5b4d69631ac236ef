/**
 * The result budget (issue 24) on the handoff and thinking tools: each fed 5× a small
 * RESULT_MAX_TOKENS returns pages within it that join back exactly, CJK and emoji included.
 * The table's tools are in result_budget_table_test.ts.
 */

import assert from "node:assert/strict";
import { estimateTokens } from "../src/kit/budget.ts";
import { call, withMcpClient } from "./support/mcp.ts";
import { mixedText, readAllPages } from "./support/pages.ts";

/** A small budget keeps the payloads of these tests small: 5× it is about 20 KB. */
const BUDGET = 1000;
const ENV = { RESULT_MAX_TOKENS: String(BUDGET) };

/** A conversation of many messages and one longer than a page, 5× the budget in all. */
function longConversation(): string {
  const messages: string[] = [];
  for (let i = 0; i < 40; i++) {
    messages.push(`## ${i % 2 ? "Assistant" : "User"}\n\n${mixedText(80, i)}\n`);
  }
  messages.splice(12, 0, `## Assistant\n\n${mixedText(2000, 3)}\n`); // longer than one page
  return messages.join("\n");
}

Deno.test("handoff_load pages a conversation 5× the budget and the pages join back exactly", async () => {
  await withMcpClient({ toolsets: "handoff", env: ENV }, async ({ client }) => {
    const conversation = longConversation();
    assert.ok(estimateTokens(conversation) > 5 * BUDGET, `${estimateTokens(conversation)}`);
    const saved = await call(client, "handoff_save", {
      key: "long",
      summary: "a long one",
      conversation,
    });
    assert.equal(saved.isError, false, saved.text);
    await call(client, "handoff_add_comment", { key: "long", content: "a comment" });
    const pages = await readAllPages(
      client,
      "handoff_load",
      { key: "long" },
      (p) => p.structured.has_more ? { from_char: p.structured.next_from_char } : null,
      BUDGET,
    );
    assert.ok(pages.length >= 5, `${pages.length} pages`);
    const joined = pages.map((p) => p.structured.conversation as string).join("");
    assert.equal(joined, conversation);
    // The text view carries each page's conversation verbatim, and says how to read on.
    for (const [i, p] of pages.entries()) {
      assert.ok(p.text.includes(p.structured.conversation as string), `page ${i} text`);
      if (p.structured.has_more) {
        assert.ok(p.text.includes(`from_char ${p.structured.next_from_char}`), `page ${i}`);
      }
    }
    assert.equal((pages[0].structured.comments as unknown[]).length, 1);
    assert.ok(pages.some((p) => p.structured.cut_inside_message === true));
    // Cuts fall between messages unless a message is longer than a page.
    for (const p of pages.slice(1)) {
      if (p.structured.from_char === 0) continue;
      const previous = pages[pages.indexOf(p) - 1];
      if (previous.structured.cut_inside_message) continue;
      assert.match(p.structured.conversation as string, /^## (User|Assistant)/);
    }
  });
});

Deno.test("handoff_load refuses a from_char past the end, naming the range", async () => {
  await withMcpClient({ toolsets: "handoff", env: ENV }, async ({ client }) => {
    await call(client, "handoff_save", {
      key: "k",
      summary: "s",
      conversation: "## User\n\nhi 🚀",
    });
    const end = await call(client, "handoff_load", { key: "k", from_char: 13 });
    assert.equal(end.isError, false, end.text);
    assert.equal(end.structured.conversation, "");
    const past = await call(client, "handoff_load", { key: "k", from_char: 14 });
    assert.equal(past.isError, true);
    assert.match(past.text, /from_char 14 is past the end: this conversation has 13 characters/);
  });
});

Deno.test("handoff_list and handoff_search page summaries 5× the budget by cursor, each once", async () => {
  await withMcpClient({ toolsets: "handoff", env: ENV }, async ({ client }) => {
    // Saved summaries are trimmed: these have no space at either end.
    const summaries = Array.from({ length: 40 }, (_, i) => mixedText(150, i).trim());
    for (const [i, summary] of summaries.entries()) {
      const saved = await call(client, "handoff_save", {
        key: `h${i}`,
        summary,
        conversation: "## User\n\nhi",
        tags: ["budget"],
      });
      assert.equal(saved.isError, false, saved.text);
    }
    for (const [tool, args] of [["handoff_list", {}], ["handoff_search", { tags: ["budget"] }]]) {
      const pages = await readAllPages(
        client,
        tool as string,
        { ...args as object, limit: 100 },
        (p) => p.structured.has_more ? { cursor: p.structured.next_cursor } : null,
        BUDGET,
      );
      assert.ok(pages.length >= 5, `${tool}: ${pages.length} pages`);
      const rows = pages.flatMap((p) =>
        p.structured.handoffs as { key: string; summary: string }[]
      );
      assert.deepEqual(rows.map((r) => r.key), summaries.map((_, i) => `h${i}`).reverse());
      assert.deepEqual(rows.map((r) => r.summary), [...summaries].reverse());
      for (const p of pages.filter((p) => p.structured.has_more)) {
        assert.ok(p.text.includes(`cursor "${p.structured.next_cursor}"`), p.text);
      }
    }
  });
});

Deno.test("get_thought_history pages thoughts 5× the budget, either order, and they join back exactly", async () => {
  await withMcpClient({ toolsets: "thinking", env: ENV }, async ({ client }) => {
    const texts = Array.from({ length: 30 }, (_, i) => mixedText(150, i));
    texts.splice(4, 0, mixedText(1500, 1)); // longer than a page
    let sequenceId: string | undefined;
    for (const [i, thought] of texts.entries()) {
      const step = await call(client, "sequentialthinking", {
        thought,
        thoughtNumber: i + 1,
        totalThoughts: texts.length,
        nextThoughtNeeded: i + 1 < texts.length,
        ...(sequenceId ? { sequenceId } : {}),
      });
      assert.equal(step.isError, false, step.text);
      sequenceId = step.structured.sequenceId as string;
    }
    for (const order of ["asc", "desc"]) {
      const pages = await readAllPages(
        client,
        "get_thought_history",
        { sequenceId, order, limit: 100, maxCharacters: 250_000 },
        (p) => p.structured.nextCursor ? { cursor: p.structured.nextCursor } : null,
        BUDGET,
      );
      assert.ok(pages.length >= 5, `${order}: ${pages.length} pages`);
      const joined = new Map<number, string>();
      for (const p of pages) {
        for (const t of p.structured.thoughts as { index: number; thought: string }[]) {
          joined.set(t.index, (joined.get(t.index) ?? "") + t.thought);
        }
      }
      const indexes = texts.map((_, i) => i + 1);
      assert.deepEqual([...joined.keys()], order === "asc" ? indexes : [...indexes].reverse());
      assert.deepEqual(indexes.map((i) => joined.get(i)), texts);
      assert.ok(pages.some((p) =>
        (p.structured.thoughts as { continues?: boolean }[])
          .some((t) => t.continues === true)
      ));
    }
  });
});

Deno.test("RESULT_MAX_CHARS cuts pages of ASCII the token budget would let through", async () => {
  const budget = { tokens: 1_000_000, chars: 4_000 };
  const env = { RESULT_MAX_TOKENS: "1000000", RESULT_MAX_CHARS: "4000" };
  await withMcpClient({ toolsets: "handoff", env }, async ({ client }) => {
    const messages = Array.from(
      { length: 60 },
      (_, i) => `## User\n\n${`line ${i} `.repeat(60)}\n`,
    );
    const conversation = messages.join("\n");
    assert.ok(conversation.length > 5 * budget.chars);
    await call(client, "handoff_save", { key: "ascii", summary: "s", conversation });
    const pages = await readAllPages(
      client,
      "handoff_load",
      { key: "ascii" },
      (p) => p.structured.has_more ? { from_char: p.structured.next_from_char } : null,
      budget,
    );
    assert.ok(pages.length >= 5, `${pages.length} pages`);
    assert.equal(pages.map((p) => p.structured.conversation).join(""), conversation);
    const listed = await client.listTools();
    const load = listed.tools.find((t) => t.name === "handoff_load")!;
    assert.equal(load._meta?.["anthropic/maxResultSizeChars"], 4_000);
  });
});

Deno.test("handoff_load and get_thought_history cut text of emoji only between characters", async () => {
  await withMcpClient({ toolsets: "handoff,thinking", env: ENV }, async ({ client }) => {
    const text = "🚀🧪".repeat(1500);
    await call(client, "handoff_save", { key: "emoji", summary: "s", conversation: text });
    const loads = await readAllPages(
      client,
      "handoff_load",
      { key: "emoji" },
      (p) => p.structured.has_more ? { from_char: p.structured.next_from_char } : null,
      BUDGET,
    );
    const parts = loads.map((p) => p.structured.conversation as string);
    assert.ok(parts.length >= 3 && parts.every((p) => p.isWellFormed()));
    assert.equal(parts.join(""), text);
    const step = await call(client, "sequentialthinking", {
      thought: text,
      thoughtNumber: 1,
      totalThoughts: 1,
      nextThoughtNeeded: false,
    });
    const history = await readAllPages(
      client,
      "get_thought_history",
      { sequenceId: step.structured.sequenceId, maxCharacters: 250_000 },
      (p) => p.structured.nextCursor ? { cursor: p.structured.nextCursor } : null,
      BUDGET,
    );
    const thoughts = history.flatMap((p) => p.structured.thoughts as { thought: string }[])
      .map((t) => t.thought);
    assert.ok(thoughts.length >= 3 && thoughts.every((t) => t.isWellFormed()));
    assert.equal(thoughts.join(""), text);
  });
});
