/**
 * `get_thought_history` as a paged read: the thoughts a history page holds are its items, so
 * `tools/result_budget.ts` cuts the page between thoughts, or inside one longer than a page, and
 * the page's `nextCursor` then points at what it left out (inside a thought: with the characters
 * already shown, so the next page resumes the text where this one stopped).
 */

import { characterCount, cutAt } from "../kit/text.ts";
import type { PagedRead } from "../tools/result_budget.ts";
import type { HistoryPage } from "./store_history.ts";
import { historyCursor } from "./store_history_cursor.ts";

/** The paged read of `page`, each page built by `build`. */
export function historyRead(page: HistoryPage, build: (p: HistoryPage) => unknown): PagedRead {
  return {
    count: page.thoughts.length,
    itemLength: (i) => page.thoughts[i].thought.length,
    page: (shown, part) => build(historyPrefix(page, shown, part)),
  };
}

/** `page` showing its first `shown` thoughts, and `part` UTF-16 units of the next when given. */
export function historyPrefix(page: HistoryPage, shown: number, part?: number): HistoryPage {
  if (shown === page.thoughts.length && part === undefined) return page;
  const thoughts = page.thoughts.slice(0, shown);
  const { order, branchId } = page;
  if (part === undefined) {
    return {
      ...page,
      thoughts,
      nextCursor: historyCursor(order, branchId, thoughts.at(-1)!.index),
    };
  }
  const t = page.thoughts[shown];
  const piece = t.thought.slice(0, cutAt(t.thought, part));
  thoughts.push({ ...t, thought: piece, continues: true });
  // A cursor "after" the index before this thought lists it again; `chars` skips what was shown.
  const before = order === "asc" ? t.index - 1 : t.index + 1;
  const chars = (t.fromCharacter ?? 0) + characterCount(piece);
  return { ...page, thoughts, nextCursor: historyCursor(order, branchId, before, chars) };
}
