/**
 * The one place a tool result is held to `RESULT_MAX_TOKENS` and `RESULT_MAX_CHARS`
 * (`kit/budget.ts`). Every handler's
 * result passes through `budgeted` (applied in `tools/registry.ts`, inside the lenient handler): a
 * result within budget goes out as it is; a paged read (`pagedResult`) is cut here to the longest
 * page whose both views fit; any other result over budget is refused with an error that names the
 * setting, never truncated silently. A toolset only says where its items are and how a page reads
 * on (`PagedRead`); the search for the cut is here.
 */

import { AppError } from "../kit/errors.ts";
import { estimateTokens, type ResultBudget } from "../kit/budget.ts";
/** A tool handler as the SDK calls it (`registry.ts` holds the same shape). */
type AnyHandler = (...a: unknown[]) => unknown;
import { type Page } from "../kit/reads.ts";

/**
 * The tool `_meta` key Claude Code reads for how long a result may be, in characters, before it
 * saves the result to a file and shows its model a 2 KB preview instead (without it: 50,000
 * characters; it honours up to 500,000). Every tool declares `RESULT_MAX_CHARS` there, so a
 * server configured above 50,000 is not cut short by Claude Code.
 */
export const RESULT_CHARS_META = "anthropic/maxResultSizeChars";

/**
 * What a page leaves free for what is added after the tool's handler: the line and field naming
 * ignored arguments (`tools/arguments.ts`).
 */
export const IGNORED_RESERVE: ResultBudget = { tokens: 200, chars: 800 };

/** `budget` less `reserve`. */
export function lessReserve(budget: ResultBudget, reserve: ResultBudget): ResultBudget {
  return { tokens: budget.tokens - reserve.tokens, chars: budget.chars - reserve.chars };
}

/** The parts of a tool result (or a resource read) the budget measures. */
interface MeasuredResult {
  content?: { type: string; text?: string }[];
  contents?: { text?: string; blob?: string }[];
  structuredContent?: unknown;
  isError?: boolean;
}

/**
 * A read that may be cut: `count` items (messages, thoughts, list rows, segments of a text) from
 * the position the caller asked for, and how to show a prefix of them. The tool decides where the
 * items are and which arguments read on; `fitPage` decides how many fit.
 */
export interface PagedRead {
  /** How many items there are from the position asked. */
  count: number;
  /**
   * The result showing items `[0, shown)` whole and, when `part` is given, the first `part`
   * UTF-16 units of item `shown` (never splitting a surrogate pair: see `cutAt`), cut inside with
   * a marker. When anything is left out, both views say so and give the arguments that read on.
   */
  page(shown: number, part?: number): unknown;
  /**
   * True when a page of no item still answers (a summary whose lists may all be cut, its counts
   * kept); otherwise such a page would not move a reader forward, and is refused.
   */
  allowEmpty?: boolean;
  /** Length of item `index` in UTF-16 units, when an item longer than a page may be cut inside. */
  itemLength?(index: number): number;
  /**
   * What the read does once its page is chosen, before the result goes out: a reader's position
   * moves to the last item the page showed whole, never past what was left out.
   */
  settle?(shown: number, part?: number): Promise<void>;
}

/** Each view of a result measured: the text blocks (or resource contents), the structured JSON. */
export interface ResultSize {
  text: number;
  structured: number;
  textChars: number;
  structuredChars: number;
}

/** Estimated tokens and characters of each view of a result. */
export function resultSize(result: unknown): ResultSize {
  const r = (result ?? {}) as MeasuredResult;
  const texts: string[] = [];
  for (const block of r.content ?? []) {
    texts.push(
      block.type === "text" && typeof block.text === "string" ? block.text : JSON.stringify(block),
    );
  }
  for (const item of r.contents ?? []) texts.push(item.text ?? item.blob ?? "");
  const json = r.structuredContent === undefined ? "" : JSON.stringify(r.structuredContent) ?? "";
  return {
    text: texts.reduce((n, t) => n + estimateTokens(t), 0),
    structured: estimateTokens(json),
    textChars: texts.reduce((n, t) => n + t.length, 0),
    structuredChars: json.length,
  };
}

/** Estimated tokens of each view of a result: the text blocks, and the structured content. */
export function resultTokens(result: unknown): { text: number; structured: number } {
  const { text, structured } = resultSize(result);
  return { text, structured };
}

/** True when both views of `result` are within `budget`, in tokens and in characters. */
export function fitsBudget(result: unknown, budget: ResultBudget): boolean {
  const size = resultSize(result);
  return Math.max(size.text, size.structured) <= budget.tokens &&
    Math.max(size.textChars, size.structuredChars) <= budget.chars;
}

/**
 * The largest `n` in `[low, high]` for which `fits(n)`, given `fits(low)`. It gallops up from
 * `low` before it bisects: each probe renders about as much as it shows, so small pages are
 * tried first instead of rendering the whole read.
 */
function largestFitting(
  low: number,
  high: number,
  fits: (n: number) => boolean,
  gallop = true,
): number {
  let good = low;
  let bad = high + 1;
  let step = 1;
  let galloping = gallop;
  while (bad - good > 1) {
    const probe = galloping ? Math.min(good + step, bad - 1) : good + Math.floor((bad - good) / 2);
    if (fits(probe)) {
      good = probe;
      step *= 2;
    } else {
      bad = probe;
      galloping = false;
    }
  }
  return good;
}

/** How many leading items of `read` have at most `chars` UTF-16 units between them. */
function itemsWithin(read: PagedRead, chars: number): number {
  let used = 0;
  for (let i = 0; i < read.count; i++) {
    used += read.itemLength!(i);
    if (used > chars) return i;
  }
  return read.count;
}

/** The error for a result that cannot be made to fit. */
function tooLarge(budget: ResultBudget, what: string): AppError {
  return new AppError(
    "too_large",
    `RESULT_TOO_LARGE: ${what} exceeds RESULT_MAX_TOKENS (${budget.tokens} estimated tokens) or RESULT_MAX_CHARS (${budget.chars} characters) per view of a result. Ask for less (a smaller limit, a narrower filter), or ask the server's owner to raise them.`,
  );
}

/**
 * The longest page of `read` whose both views fit `budget`: as many whole items as fit, or,
 * when even the first does not, the longest prefix of it that fits. Throws `too_large` when not
 * even an empty page (or one UTF-16 unit of the first item) fits.
 */
export function fitPage(read: PagedRead, budget: ResultBudget): unknown {
  return choosePage(read, budget).result;
}

/** The page `fitPage` chooses, with how much it shows. */
function choosePage(
  read: PagedRead,
  budget: ResultBudget,
): { result: unknown; shown: number; part?: number } {
  const made = new Map<string, unknown>();
  const page = (shown: number, part?: number) => {
    const key = `${shown}/${part ?? ""}`;
    if (!made.has(key)) made.set(key, read.page(shown, part));
    return made.get(key);
  };
  const fits = (shown: number, part?: number) => fitsBudget(page(shown, part), budget);
  const chosen = (shown: number, part?: number) => ({ result: page(shown, part), shown, part });
  // With item lengths known, no page can show more items than the characters allow (each view
  // holds every item's text at least once): search below that bound, by bisection.
  const bound = read.itemLength ? itemsWithin(read, budget.chars) : read.count;
  if (bound === read.count && fits(read.count)) return chosen(read.count);
  if (read.count > 0 && fits(1)) {
    const high = Math.max(1, Math.min(bound, read.count));
    return chosen(largestFitting(1, high, (n) => fits(n), read.itemLength === undefined));
  }
  if (read.allowEmpty && fits(0)) return chosen(0);
  const length = read.count > 0 ? read.itemLength?.(0) ?? 0 : 0;
  if (length > 1 && fits(0, 1)) {
    return chosen(0, largestFitting(1, length - 1, (n) => fits(0, n)));
  }
  throw tooLarge(budget, "Even the smallest page of this result");
}

const PAGED = new WeakMap<object, PagedRead>();

/**
 * What a tool handler or a resource's read callback returns for a read the budget may cut:
 * `budgeted` turns it into the longest page that fits. (A placeholder object, typed to pass as
 * either; the SDK never sees it.)
 */
export function pagedResult(read: PagedRead): { content: never[]; contents: never[] } {
  const placeholder = { content: [] as never[], contents: [] as never[] };
  PAGED.set(placeholder, read);
  return placeholder;
}

/**
 * `handler` with its result held to `budget`: a paged read is cut by `fitPage`, any other result
 * passes `heldToBudget`.
 */
export function budgeted(
  handler: AnyHandler,
  budget: ResultBudget,
  options: { writes?: boolean } = {},
): AnyHandler {
  return async (...args: unknown[]) => {
    const result = await handler(...args);
    const read = typeof result === "object" && result !== null ? PAGED.get(result) : undefined;
    if (read !== undefined) {
      const { result, shown, part } = choosePage(read, budget);
      await read.settle?.(shown, part);
      return result;
    }
    return heldToBudget(result, budget, options);
  };
}

/**
 * `result` if it may go out under `budget`: an error passes as it is (its text is the server's
 * own, short), and any other result over budget is refused naming the settings. A tool that
 * writes (`writes`) is never refused after the fact: its write has landed, and an error would
 * tell the caller otherwise (and invite a repeat), so its result passes as it is; what it echoes
 * is the caller's own input.
 */
export function heldToBudget<R>(
  result: R,
  budget: ResultBudget,
  options: { writes?: boolean } = {},
): R {
  if (
    options.writes || (result as MeasuredResult | undefined)?.isError ||
    fitsBudget(result, budget)
  ) {
    return result;
  }
  throw tooLarge(budget, "This result");
}

/**
 * The first `shown` items of a KV page (`listPage`), reading on from the cursor after the last
 * one shown when the budget cut it: the read-on of every cursor-paged list.
 */
export function cutPage<T>(page: Page<T>, shown: number): Page<T> & { cut: boolean } {
  if (shown >= page.items.length) return { ...page, cut: false };
  return {
    items: page.items.slice(0, shown),
    hasMore: true,
    nextCursor: page.cursors[shown - 1] ?? null,
    cursors: page.cursors.slice(0, shown),
    cut: true,
  };
}
