import assert from "node:assert/strict";
import type { Handoff } from "./store_schema.ts";
import { renderList } from "./render.ts";

function handoff(overrides: Partial<Handoff> = {}): Handoff {
  return {
    key: "k",
    title: "Title",
    summary: "Summary",
    fromAi: null,
    fromProject: null,
    status: "active",
    nextAction: null,
    tags: [],
    createdAt: "2025-01-01T00:00:00.000Z",
    updatedAt: "2025-01-01T00:00:00.000Z",
    order: "01JAAAAAAAAAAAAAAAAAAAAAAA",
    bytes: 10,
    messageCount: 1,
    chunks: [],
    commentIds: [],
    mergedFrom: null,
    ...overrides,
  };
}

Deno.test("renderList() cuts a long summary without splitting an emoji", () => {
  const summary = `${"a".repeat(299)}🎌 and more`;
  const text = renderList({
    items: [handoff({ summary })],
    nextCursor: null,
    hasMore: false,
    cursors: [],
  }, "N");
  assert.ok(text.isWellFormed(), "no lone surrogate in the output");
  assert.ok(text.includes(`${"a".repeat(299)}…`) || text.includes(`${"a".repeat(299)}🎌…`));
});
