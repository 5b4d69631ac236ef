import assert from "node:assert/strict";
import { getHistory } from "./store_history.ts";
import { thoughtKey, thoughtPartKey, type ThoughtRecord } from "./store_keys.ts";
import { splitText } from "./store_text.ts";
import { addThought } from "./store_write.ts";
import { LIMITS, step, withKv } from "../../tests/support/thinking_store.ts";

Deno.test("addThought() stores 20,000 characters of any script and reads them back intact", async () => {
  await withKv(async (kv) => {
    const texts = {
      emoji: "😀".repeat(20_000),
      cjk: "漢".repeat(20_000),
      astralCjk: "𠀋".repeat(19_999) + "a",
      mixed: Array.from({ length: 20_000 }, (_, i) => ["a", "é", "漢", "🧠", "ب"][i % 5]).join(""),
    };
    const { sequenceId } = await addThought(kv, LIMITS, step(1, { thought: texts.emoji }));
    await addThought(kv, LIMITS, step(2, { sequenceId, thought: texts.cjk }));
    await addThought(kv, LIMITS, step(3, { sequenceId, thought: texts.astralCjk }));
    await addThought(kv, LIMITS, step(4, { sequenceId, thought: texts.mixed }));
    const stored = (await kv.get<ThoughtRecord>(thoughtKey(sequenceId, 1))).value!;
    assert.equal(stored.text, undefined, "40,000 code units go to chunk keys");
    assert.equal(stored.parts, 2);
    assert.equal((await kv.get<string>(thoughtPartKey(sequenceId, 1, 1))).value?.length, 20_000);
    const cjk = (await kv.get<ThoughtRecord>(thoughtKey(sequenceId, 2))).value!;
    assert.equal(cjk.text, texts.cjk, "BMP text fits inline");

    const page = await getHistory(kv, LIMITS, sequenceId, { maxCharacters: 250_000 });
    assert.deepEqual(page.thoughts.map((t) => t.thought), Object.values(texts));
    assert.deepEqual(page.thoughts.map((t) => t.characters), [20_000, 20_000, 20_000, 20_000]);
    assert.ok(page.thoughts.every((t) => !t.truncated));
  });
});

Deno.test("splitText() never cuts a surrogate pair", () => {
  const text = "a" + "😀".repeat(15_000);
  const parts = splitText(text);
  assert.equal(parts.join(""), text);
  for (const part of parts) {
    assert.ok(part.length <= 20_000);
    assert.ok(!/[\uD800-\uDBFF]$/.test(part), "no part ends with a high surrogate");
    assert.ok(!/^[\uDC00-\uDFFF]/.test(part), "no part starts with a low surrogate");
  }
});
