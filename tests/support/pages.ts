/**
 * Reading a paged tool to its end, as a client following the read-on arguments would, with each
 * page's both views measured against the result budget (`tools/result_budget.ts`).
 */

import assert from "node:assert/strict";
import {
  DEFAULT_RESULT_MAX_CHARS,
  estimateTokens,
  type ResultBudget,
} from "../../src/kit/budget.ts";
import { resultSize } from "../../src/tools/result_budget.ts";
import type { McpClient } from "./mcp.ts";

/** One page as read: its text, structured content and estimated tokens of each view. */
export interface ReadPage {
  text: string;
  structured: Record<string, unknown>;
  tokens: { text: number; structured: number };
}

/**
 * Calls `name` with `args`, then with `next(page)` merged in while it gives arguments, asserting
 * that every page succeeds and that both of its views are within `budget` (a number: tokens, with
 * the default characters).
 */
export async function readAllPages(
  client: McpClient,
  name: string,
  args: Record<string, unknown>,
  next: (page: ReadPage) => Record<string, unknown> | null,
  budget: number | ResultBudget,
  maxPages = 200,
): Promise<ReadPage[]> {
  const { tokens: maxTokens, chars: maxChars } = typeof budget === "number"
    ? { tokens: budget, chars: DEFAULT_RESULT_MAX_CHARS }
    : budget;
  const pages: ReadPage[] = [];
  let more: Record<string, unknown> | null = {};
  while (more !== null) {
    assert.ok(pages.length < maxPages, `${name}: more than ${maxPages} pages`);
    const result = await client.callTool({ name, arguments: { ...args, ...more } });
    const content = result.content as { type: string; text?: string }[];
    const text = content.map((c) => c.text ?? "").join("\n");
    assert.notEqual(result.isError, true, text);
    const size = resultSize(result);
    const tokens = { text: size.text, structured: size.structured };
    const at = `${name} page ${pages.length}`;
    assert.ok(size.text <= maxTokens, `${at}: text ${size.text} tokens`);
    assert.ok(size.structured <= maxTokens, `${at}: structured ${size.structured} tokens`);
    assert.ok(size.textChars <= maxChars, `${at}: text ${size.textChars} characters`);
    assert.ok(size.structuredChars <= maxChars, `${at}: structured ${size.structuredChars} chars`);
    const page = { text, structured: (result.structuredContent ?? {}) as never, tokens };
    pages.push(page);
    more = next(page);
  }
  return pages;
}

/** Mixed text of about `tokens` estimated tokens: Latin, CJK and emoji (surrogate pairs). */
export function mixedText(tokens: number, seed = 0): string {
  const parts = [
    "The plan is 計画は三段階です。",
    "emoji 🚀🧪 here",
    "données réglées ",
    "漢字かな交じり文",
  ];
  let out = "";
  let used = 0;
  for (let i = seed; used < tokens; i++) {
    const part = parts[i % parts.length] + (i % 7 === 0 ? "\n" : " ");
    out += part;
    used += estimateTokens(part);
  }
  return out;
}
