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
    await call(client, "handoff_save", { key: "k", summary: "s", conversation: "## User\n\nhi 🚀" });
    const end = await call(client, "handoff_load", { key: "k", from_char: 13 });
    assert.equal(end.isError, false, end.text);
    assert.equal(end.structured.conversation, "");
    const past = await call(client, "handoff_load", { key: "k", from_char: 14 });
    assert.equal(past.isError, true);
    assert.match(past.text, /from_char 14 is past the end: this conversation has 13 characters/);
  });
});
