/**
 * The size-budget case of the compatibility suite (issue 24): another session stores a 1 MiB
 * handoff, the plan loads it page by page with the read-on arguments each page gave, and the
 * check reads what the CLI showed its model: every page whole, no client-side truncation, no
 * size error. The pages are learnt at seeding time through an SDK client, so the plan stays a
 * fixed list of steps; every Claude Code run executes them (`compat_case.ts`).
 */

import assert from "node:assert/strict";
import { call, type McpClient } from "./mcp.ts";
import type { PlanStep, SeenToolResult } from "./stub_model.ts";

/** The key of the 1 MiB handoff. */
export const LARGE_KEY = "one-mebibyte";

/** One page of the large handoff, as the server gives it to any client. */
export interface LargePage {
  /** The read-on argument of the previous page (none for the first). */
  fromChar?: number;
  conversation: string;
}

/** A conversation of exactly 1 MiB of UTF-8: many messages, Latin text with some CJK. */
export function largeConversation(): string {
  const line = "The release plan moves the migration first, then the API. 計画は三段階です。\n";
  const messages: string[] = [];
  let bytes = 0;
  for (let i = 0; bytes < 1024 * 1024 - 4096; i++) {
    const body = `## ${i % 2 ? "Assistant" : "User"}\n\nStep ${i}.\n${line.repeat(20)}\n`;
    messages.push(body);
    bytes += new TextEncoder().encode(body).length;
  }
  const text = messages.join("");
  const pad = 1024 * 1024 - new TextEncoder().encode(text).length;
  return text + "x".repeat(pad);
}

/** Saves the large handoff as `other` and reads it page by page, as a client would. */
export async function seedLarge(other: McpClient): Promise<LargePage[]> {
  const conversation = largeConversation();
  const saved = await call(other, "handoff_save", {
    key: LARGE_KEY,
    summary: "A long chat to continue",
    conversation,
  });
  assert.equal(saved.isError, false, saved.text);
  const pages: LargePage[] = [];
  let fromChar: number | undefined;
  for (;;) {
    const args = fromChar === undefined
      ? { key: LARGE_KEY }
      : { key: LARGE_KEY, from_char: fromChar };
    const page = await call(other, "handoff_load", args);
    assert.equal(page.isError, false, page.text);
    pages.push({ fromChar, conversation: page.structured.conversation as string });
    if (!page.structured.has_more) break;
    fromChar = page.structured.next_from_char as number;
  }
  assert.equal(pages.map((p) => p.conversation).join(""), conversation);
  assert.ok(pages.length > 5, `a 1 MiB handoff in ${pages.length} pages`);
  return pages;
}

/** The plan's steps: one handoff_load per page, each with the argument that reads on. */
export function largeSteps(pages: LargePage[]): PlanStep[] {
  return pages.map((p) => ({
    tool: "handoff_load",
    args: p.fromChar === undefined ? { key: LARGE_KEY } : { key: LARGE_KEY, from_char: p.fromChar },
  }));
}

/** What a CLI says instead of a result it found too large. */
const CLIENT_LIMIT = /exceeds maximum allowed tokens|Output has been saved|truncated/i;

/**
 * Each page of the large handoff reached the model whole: its conversation is in what the model
 * was shown (as text, or inside the structured content's JSON), and no size error or
 * truncation notice of the CLI replaced it.
 */
export function assertLargePagesWhole(
  results: SeenToolResult[],
  pages: LargePage[],
  label: string,
): void {
  const loads = results.filter((r) => r.tool === "handoff_load" && r.args.key === LARGE_KEY);
  assert.equal(loads.length, pages.length, `${label}: one result per page of the large handoff`);
  for (const [i, r] of loads.entries()) {
    const page = pages[i].conversation;
    const escaped = JSON.stringify(page).slice(1, -1);
    assert.ok(
      !CLIENT_LIMIT.test(r.text),
      `${label}: page ${i} of the large handoff was cut or refused by the CLI:\n${
        r.text.slice(0, 500)
      }`,
    );
    assert.ok(
      r.text.includes(page) || r.text.includes(escaped),
      `${label}: page ${i} of the large handoff (${page.length} characters) did not reach the model whole (it saw ${r.text.length} characters)`,
    );
  }
}
