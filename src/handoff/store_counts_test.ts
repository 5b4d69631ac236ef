/**
 * Imported handoffs are counted apart from saved ones: every write that adds, removes or changes
 * the kind of a handoff keeps both counts equal to the records they count.
 */

import assert from "node:assert/strict";
import { deleteHandoff } from "./store_delete.ts";
import { mergeHandoffs } from "./store_merge.ts";
import { listHandoffs } from "./store_read.ts";
import { saveHandoff, type SaveInput } from "./store_save.ts";
import { type Handoff, handoffCountKey, handoffImportCountKey } from "./store_schema.ts";
import { LIMITS, withKv } from "../../tests/support/handoff_store.ts";

function imported(key: string, digest = "d1"): SaveInput {
  return {
    key,
    summary: "Imported from ChatGPT",
    conversation: "## User\nhello\n",
    imported: {
      source: "chatgpt",
      digest,
      createdAt: "2024-01-02T03:04:05.000Z",
      updatedAt: "2024-01-03T00:00:00.000Z",
    },
  };
}

/** Both counts, checked against the records. */
async function counts(kv: Deno.Kv): Promise<[number, number]> {
  let saved = 0, fromImport = 0;
  for await (const e of kv.list<Handoff>({ prefix: ["handoff"] })) {
    if (e.key.length !== 2) continue;
    if (e.value.imported) fromImport++;
    else saved++;
  }
  const stored: [number, number] = [
    (await kv.get<number>(handoffCountKey())).value ?? 0,
    (await kv.get<number>(handoffImportCountKey())).value ?? 0,
  ];
  assert.deepEqual(stored, [saved, fromImport], "the counts match the records");
  return stored;
}

Deno.test("an imported save keeps its original time and counts apart", async () => {
  await withKv(async (kv) => {
    await saveHandoff(kv, LIMITS, { key: "earlier", summary: "s", conversation: "## User\nx" });
    const r = await saveHandoff(kv, LIMITS, imported("chatgpt-1"));
    assert.equal(r.handoff.createdAt, "2024-01-02T03:04:05.000Z");
    assert.equal(r.handoff.updatedAt, "2024-01-03T00:00:00.000Z");
    const listed = await listHandoffs(kv, { limit: 10 });
    assert.deepEqual(
      listed.items.map((h) => h.key),
      ["earlier", "chatgpt-1"],
      "imported history is listed by when it happened, not as just saved",
    );
    assert.deepEqual(r.handoff.imported, { source: "chatgpt", digest: "d1" });
    await saveHandoff(kv, LIMITS, imported("chatgpt-1", "d2"));
    await saveHandoff(kv, LIMITS, { key: "own", summary: "s", conversation: "## User\nx" });
    assert.deepEqual(await counts(kv), [2, 1]);
  });
});

Deno.test("a delete takes an imported handoff off its own count", async () => {
  await withKv(async (kv) => {
    await saveHandoff(kv, LIMITS, imported("chatgpt-1"));
    await saveHandoff(kv, LIMITS, { key: "own", summary: "s", conversation: "## User\nx" });
    await deleteHandoff(kv, LIMITS, "chatgpt-1");
    assert.deepEqual(await counts(kv), [1, 0]);
  });
});

Deno.test("a plain save over an imported key moves it to the saved count", async () => {
  await withKv(async (kv) => {
    await saveHandoff(kv, LIMITS, imported("chatgpt-1"));
    await saveHandoff(kv, LIMITS, { key: "chatgpt-1", summary: "s", conversation: "## User\nx" });
    assert.deepEqual(await counts(kv), [1, 0]);
  });
});

Deno.test("a merge of imported sources leaves their count; the merged handoff is a saved one", async () => {
  await withKv(async (kv) => {
    await saveHandoff(kv, LIMITS, imported("chatgpt-1"));
    await saveHandoff(kv, LIMITS, imported("chatgpt-2"));
    await saveHandoff(kv, LIMITS, { key: "own", summary: "s", conversation: "## User\nx" });
    await mergeHandoffs(kv, LIMITS, {
      keys: ["chatgpt-1", "own"],
      newKey: "m",
      deleteSources: true,
    });
    assert.deepEqual(await counts(kv), [1, 1]);
    await mergeHandoffs(kv, LIMITS, {
      keys: ["chatgpt-2", "m"],
      newKey: "chatgpt-2",
      deleteSources: true,
    });
    assert.deepEqual(await counts(kv), [1, 0]);
  });
});

Deno.test("eviction lists only evictable handoffs; an index missing from an older database is built", async () => {
  await withKv(async (kv) => {
    const limits = { ...LIMITS, maxHandoffs: 2 };
    await saveHandoff(kv, limits, imported("chatgpt-old"));
    await saveHandoff(kv, limits, { key: "own-0", summary: "s", conversation: "## User\nx" });
    await saveHandoff(kv, limits, { key: "own-1", summary: "s", conversation: "## User\nx" });
    const indexed = async () => {
      const keys: string[] = [];
      for await (const e of kv.list<string>({ prefix: ["handoff_evict"] })) {
        if (e.key.length === 2) keys.push(e.value);
      }
      return keys;
    };
    assert.deepEqual(await indexed(), ["own-0", "own-1"]);
    // As a database written before the index existed: no entries, no marker.
    for await (const e of kv.list({ prefix: ["handoff_evict"] })) await kv.delete(e.key);
    await kv.delete(["handoff_evict_built"]);
    const r = await saveHandoff(kv, limits, {
      key: "own-2",
      summary: "s",
      conversation: "## User\nx",
    });
    assert.equal(r.evicted?.key, "own-0");
    assert.deepEqual(await indexed(), ["own-1", "own-2"]);
    assert.equal((await kv.get(["handoff_evict_built"])).value, true);
    assert.notEqual((await kv.get(["handoff", "chatgpt-old"])).value, null);
    assert.deepEqual(await counts(kv), [2, 1]);
  });
});
