import assert from "node:assert/strict";
import { utf8Bytes } from "../kit/text.ts";
import { fitConversation } from "./fit.ts";
import { renderMessages, type TranscriptMessage } from "./transcript.ts";

const turns = (n: number): TranscriptMessage[] =>
  Array.from({ length: n }, (_, i) => ({
    role: i % 2 === 0 ? "user" : "assistant",
    body: `Message ${i}: ${"日本語".repeat(20)}`,
  }));

Deno.test("fitConversation() keeps a conversation that fits whole, without a note", () => {
  const messages = turns(4);
  assert.deepEqual(fitConversation(messages, 1_000_000), {
    text: renderMessages(messages),
    droppedMessages: 0,
    droppedBytes: 0,
  });
});

Deno.test("fitConversation() keeps the newest messages under the limit and names what it dropped", () => {
  const messages = turns(100);
  const whole = utf8Bytes(renderMessages(messages));
  const fitted = fitConversation(messages, 4000);
  assert.ok(utf8Bytes(fitted.text) <= 4000);
  assert.ok(fitted.droppedMessages > 0 && fitted.droppedMessages < 100);
  assert.ok(fitted.text.endsWith(renderMessages(messages.slice(fitted.droppedMessages))));
  assert.ok(fitted.text.startsWith(
    `[handoff-mcp: this session is larger than the handoff limit (4000 bytes): its ${fitted.droppedMessages} oldest message(s) were left out (${fitted.droppedBytes} bytes)`,
  ));
  assert.equal(
    fitted.droppedBytes,
    whole - utf8Bytes(renderMessages(messages.slice(fitted.droppedMessages))),
  );
});

Deno.test("fitConversation() keeps the end of a newest message larger than the limit on its own", () => {
  const huge: TranscriptMessage = { role: "user", body: "ก".repeat(10_000) + "THE END" };
  const fitted = fitConversation([...turns(3), huge], 3000);
  assert.ok(utf8Bytes(fitted.text) <= 3000);
  assert.equal(fitted.droppedMessages, 3);
  assert.match(fitted.text, /## User\n\n\[… start of this message cut\]\nก+THE END\n\n$/);
});
