import assert from "node:assert/strict";
import { input, LIMITS } from "../../tests/support/handoff_store.ts";
import { withKv } from "../../tests/support/kv.ts";
import { saveHandoff } from "../handoff/store_save.ts";
import { handoffChunkKey, handoffKey } from "../handoff/store_schema.ts";
import { ExportRaced } from "./export_check.ts";
import { CODEX, withTable } from "../../tests/support/table_mcp.ts";
import { createDiscussion } from "../table/store_discussions.ts";
import { exportKv } from "./transfer.ts";

const LONG = "## User\n" + "a long conversation ".repeat(10_000);

Deno.test("exportKv() refuses to end a file whose handoff was saved again after its record was read", async () => {
  await withKv(async (kv) => {
    await saveHandoff(kv, LIMITS, input({ key: "h1", conversation: LONG }));
    // Entries between the record and its chunks in key order, past KV's list batch of 500, so
    // the chunks are read after the save below.
    for (let i = 0; i < 600; i++) await kv.set(["handoff_between", i], i);
    let saved = false;
    const lines: string[] = [];
    const error = await exportKv(kv, async (line) => {
      lines.push(line);
      if (!saved && line.startsWith('{"key":["handoff","h1"]')) {
        saved = true;
        await saveHandoff(kv, LIMITS, input({ key: "h1", conversation: LONG + " and more" }));
      }
    }).catch((e) => e);
    assert.ok(error instanceof ExportRaced, String(error));
    assert.match(
      error.message,
      /^the database changed while the export read it \(handoff "h1" was saved again\)/,
    );
    assert.ok(!lines.at(-1)!.startsWith('{"end"'), "no end line: the file is never complete");
    // Taken again, it is whole.
    const again: string[] = [];
    await exportKv(kv, (line) => Promise.resolve(void again.push(line)));
    assert.ok(again.at(-1)!.startsWith('{"end"'));
  });
});

Deno.test("exportKv() exports a handoff missing chunks as it is when nothing changed it meanwhile", async () => {
  await withKv(async (kv) => {
    await saveHandoff(kv, LIMITS, input({ key: "h1", conversation: LONG }));
    const record = (await kv.get<{ chunks: { id: string }[] }>(handoffKey("h1"))).value!;
    await kv.delete(handoffChunkKey("h1", record.chunks[0].id));
    const lines: string[] = [];
    await exportKv(kv, (line) => Promise.resolve(void lines.push(line)));
    assert.ok(lines.at(-1)!.startsWith('{"end"'));
  });
});

Deno.test("exportKv() refuses to end a file holding messages of a discussion created meanwhile", async () => {
  await withTable({}, async ({ ctx, kv }) => {
    await createDiscussion(ctx, CODEX, { title: "old", body: "hi" });
    for (let i = 0; i < 600; i++) await kv.set(["filler", i], i);
    let created = "";
    const error = await exportKv(kv, async (line) => {
      if (created === "" && line.startsWith('{"key":["filler"')) {
        created = (await createDiscussion(ctx, CODEX, { title: "new", body: "yo" })).discussion.id;
      }
    }).catch((e) => e);
    assert.ok(error instanceof ExportRaced, String(error));
    assert.match(error.message, new RegExp(`\\(discussion ${created} was created\\)`));
    // An orphan whose discussion does not exist now either was there before: exported as it is.
    await kv.delete(["discussion", created]);
    await exportKv(kv, () => Promise.resolve());
  });
});
