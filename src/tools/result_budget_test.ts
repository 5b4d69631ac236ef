import assert from "node:assert/strict";
import { AppError } from "../kit/errors.ts";
import { cutAt } from "../kit/text.ts";
import {
  budgeted,
  fitPage,
  fitsBudget,
  pagedResult,
  resultSize,
  resultTokens,
} from "./result_budget.ts";

/** A budget of `tokens` with characters to spare, so only the tokens bind. */
const tokens = (n: number) => ({ tokens: n, chars: 1_000_000 });

const text = (t: string) => ({ content: [{ type: "text", text: t }] });

Deno.test("resultTokens() measures the text blocks, structured content and resource contents", () => {
  assert.deepEqual(resultTokens(text("abcdefgh")), { text: 2, structured: 0 });
  assert.deepEqual(
    resultTokens({ ...text("漢字"), structuredContent: { a: "漢字" } }),
    { text: 2, structured: 4 }, // {"a":"漢字"}: 8 ASCII bytes and two CJK characters
  );
  assert.deepEqual(resultTokens({ contents: [{ text: "abcd" }] }), { text: 1, structured: 0 });
  assert.equal(
    fitsBudget({ ...text("a"), structuredContent: { s: "x".repeat(400) } }, tokens(100)),
    false,
  );
  assert.deepEqual(resultSize({ ...text("漢字🙂"), structuredContent: { a: 1 } }), {
    text: 3,
    structured: 2,
    textChars: 4, // UTF-16 units, as clients count a string
    structuredChars: 7,
  });
});

Deno.test("fitPage() shows as many whole items as fit, else the longest part of the first", () => {
  const items = Array.from({ length: 100 }, (_, i) => `${i}`.padEnd(40, "."));
  const read = {
    count: items.length,
    itemLength: (i: number) => items[i].length,
    page: (shown: number, part?: number) =>
      text(items.slice(0, shown).join("") + (part ? items[shown].slice(0, part) : "")),
  };
  const used = (r: unknown) => resultTokens(r).text;
  // 40 characters are 10 tokens: 25 items fit 250 tokens, 26 do not.
  assert.equal(used(fitPage(read, tokens(250))), 250);
  assert.equal(used(fitPage(read, tokens(259))), 250);
  assert.equal(used(fitPage({ ...read, count: 3 }, tokens(250))), 30);
  // Characters bind as well: 1,000 characters are 25 items.
  assert.equal(used(fitPage(read, { tokens: 100_000, chars: 1_039 })), 250);
  // The first item alone is over 5 tokens: its first 20 characters are shown.
  assert.equal(
    (fitPage(read, tokens(5)) as ReturnType<typeof text>).content[0].text,
    items[0].slice(0, 20),
  );
  assert.throws(
    () => fitPage({ ...read, itemLength: undefined }, tokens(5)),
    /RESULT_MAX_TOKENS \(5 .*RESULT_MAX_CHARS/,
  );
});

Deno.test("cutAt() never splits a surrogate pair, and always moves forward", () => {
  const s = "a🚀b";
  assert.equal(cutAt(s, 1), 1);
  assert.equal(cutAt(s, 2), 3); // inside 🚀: after it
  assert.equal(cutAt(s, 0), 0);
  assert.equal(cutAt(s, 9), s.length);
});

Deno.test("budgeted() passes a result within budget, cuts a paged one, refuses any other over it", async () => {
  const small = budgeted(() => text("fine"), tokens(10));
  assert.deepEqual(await small(), text("fine"));
  const big = budgeted(() => text("x".repeat(100)), tokens(10));
  await assert.rejects(async () => await big(), (e: unknown) => {
    assert.ok(e instanceof AppError && e.kind === "too_large");
    assert.match(e.message, /^RESULT_TOO_LARGE: .*RESULT_MAX_TOKENS \(10 /);
    assert.match(e.message, /RESULT_MAX_CHARS \(1000000 characters\)/);
    return true;
  });
  // A tool that writes is never refused after its write: its result passes as it is.
  const wrote = text("x".repeat(100));
  assert.deepEqual(await budgeted(() => wrote, tokens(10), { writes: true })(), wrote);
  const error = { ...text("x".repeat(100)), isError: true };
  assert.deepEqual(await budgeted(() => error, tokens(10))(), error);
  const settled: unknown[] = [];
  const paged = budgeted(() =>
    pagedResult({
      count: 10,
      page: (shown) => text("abcd".repeat(shown)),
      settle: (shown, part) => Promise.resolve(void settled.push([shown, part])),
    }), tokens(3));
  assert.deepEqual(await paged(), text("abcd".repeat(3)));
  assert.deepEqual(settled, [[3, undefined]]);
});
