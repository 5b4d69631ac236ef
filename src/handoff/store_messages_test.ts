import assert from "node:assert/strict";
import { countMessages, findMessages, lastMessages } from "./store_messages.ts";

const CONVERSATION = [
  "Context from before.",
  "## User",
  "How do I merge?",
  "",
  "## Assistant",
  "Like this:",
  "```md",
  "## User",
  "User: inside a fence is not a message",
  "```",
  "**User:** thanks",
  "Human: one more",
  "Assistant: sure",
  "",
].join("\n");

Deno.test("findMessages() counts ## headings, bold and plain speakers, not fenced lines", () => {
  const roles = findMessages(CONVERSATION).map((m) => m.role);
  assert.deepEqual(roles, ["user", "assistant", "user", "human", "assistant"]);
  assert.equal(countMessages(CONVERSATION), 5);
});

Deno.test("findMessages() ignores look-alikes: 'User stories', 'Note:', indented speakers", () => {
  const text = "## User stories\nNote: this\n  User: indented\n### Claude (Opus)\nhi\n";
  assert.deepEqual(findMessages(text).map((m) => m.role), ["claude"]);
});

Deno.test("findMessages() needs the same fence to close; tildes and longer fences work", () => {
  const text = "## User\n````\n```\n## User\n```\n````\n~~~\n## Assistant\n~~~\n## Assistant\n";
  assert.deepEqual(findMessages(text).map((m) => m.role), ["user", "assistant"]);
});

Deno.test("countMessages() is 1 for text without speakers and 0 for empty text", () => {
  assert.equal(countMessages("just notes"), 1);
  assert.equal(countMessages(""), 0);
});

Deno.test("lastMessages() keeps a verbatim tail and says how many were left out", () => {
  const tail = lastMessages(CONVERSATION, 2);
  assert.equal(tail.total, 5);
  assert.equal(tail.shown, 2);
  assert.equal(tail.omitted, 3);
  assert.equal(tail.preambleOmitted, true);
  assert.equal(tail.text, "Human: one more\nAssistant: sure\n");
  assert.ok(CONVERSATION.endsWith(tail.text));
  const all = lastMessages(CONVERSATION, 10);
  assert.equal(all.text, CONVERSATION);
  assert.equal(all.omitted, 0);
});

Deno.test("lastMessages() handles CRLF line ends", () => {
  const text = "## User\r\nhi\r\n## Assistant\r\nhello\r\n";
  assert.equal(lastMessages(text, 1).text, "## Assistant\r\nhello\r\n");
});

Deno.test("a code fence never closed does not swallow the messages after it", () => {
  // An answer cut off inside a code block, then the conversation goes on.
  const text = [
    "## User",
    "show me",
    "## Assistant",
    "```ts",
    "const x = 1;",
    "## User",
    "it stopped mid-code; go on",
    "## Assistant",
    "Sure, here is the rest:",
    "~~~",
    "## User: still quoted, this fence closes",
    "~~~",
    "",
  ].join("\n");
  assert.deepEqual(findMessages(text).map((m) => m.role), [
    "user",
    "assistant",
    "user",
    "assistant",
  ]);
  assert.equal(lastMessages(text, 1).text.split("\n")[0], "## Assistant");
});

Deno.test("findMessages() takes a lone CR as a line end, as Markdown does", () => {
  const text = "## User\rhi\r## Assistant\rhello\r";
  assert.equal(countMessages(text), 2);
  assert.equal(lastMessages(text, 1).text, "## Assistant\rhello\r");
});

Deno.test("findMessages() stays linear on many unclosed fences", () => {
  // Fences of falling length: none is ever closed. A rescan after each would be quadratic.
  const lines = Array.from({ length: 3000 }, (_, i) => "`".repeat(3003 - i));
  const text = `${lines.join("\n")}\n## User\nhi\n`;
  const started = performance.now();
  assert.equal(countMessages(text), 1);
  assert.ok(performance.now() - started < 1000, "well under a second for ~4.5 MB of fences");
});
