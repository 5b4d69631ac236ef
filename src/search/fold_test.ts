import assert from "node:assert/strict";
import { atomic } from "../kit/commit.ts";
import { indexLater, indexRecord, type SearchSource } from "../kit/search_source.ts";
import { withKv } from "../../tests/support/kv.ts";
import { foldOnce } from "./fold.ts";
import { rank } from "./query.ts";
import { parseQuery } from "./words.ts";

const failing: SearchSource = {
  kind: "boom",
  mutable: true,
  load: () => Promise.reject(new Error("cannot read it now")),
  fetch: () => Promise.resolve(null),
  scan: async function* () {},
};

const limits = { postingsMax: 1000, pendingScan: 1000 };

Deno.test("fold: an item that cannot be read back stays pending; the rest is folded", () =>
  withKv(async (kv) => {
    const op = atomic(kv);
    indexLater(op, "boom", ["x"]);
    indexRecord(op, {
      kind: "note",
      ref: ["1"],
      title: "t",
      passages: ["folded words"],
      meta: {},
      created_at: new Date().toISOString(),
    });
    assert.ok((await op.commit()).ok);
    const sources = new Map([["boom", failing]]);
    const report = await foldOnce(kv, sources, 100);
    assert.equal(report?.passages, 1);
    const left = await Array.fromAsync(kv.list({ prefix: ["search", "q"] }));
    assert.equal(left.length, 1, "the unreadable item waits for the next fold");
    const found = await rank(kv, parseQuery("folded"), {}, 10, limits);
    assert.deepEqual(found.hits.map((h) => h.doc.r), [["1"]]);
    assert.equal(found.pending, 1);
  }));

Deno.test("fold: two folders on one KV file never fold an entry twice", async () => {
  const dir = await Deno.makeTempDir();
  const a = await Deno.openKv(`${dir}/kv`);
  const b = await Deno.openKv(`${dir}/kv`);
  try {
    for (let i = 0; i < 300; i += 10) {
      const op = atomic(a);
      for (let j = i; j < i + 10; j++) {
        indexRecord(op, {
          kind: "note",
          ref: [String(j)],
          title: "t",
          passages: [`note number${j}`],
          meta: {},
          created_at: new Date().toISOString(),
        });
      }
      assert.ok((await op.commit()).ok);
    }
    const sources = new Map<string, SearchSource>();
    const drain = async (kv: Deno.Kv) => {
      for (let idle = 0; idle < 20;) {
        const r = await foldOnce(kv, sources, 7);
        if (r === null) {
          idle++;
          await new Promise((res) => setTimeout(res, 5));
        } else idle = 0;
      }
    };
    await Promise.all([drain(a), drain(b)]);
    const segs = await Array.fromAsync(a.list<{ docs: number }>({ prefix: ["search", "seg"] }));
    assert.equal(segs.reduce((n, s) => n + s.value.docs, 0), 300);
    assert.equal((await Array.fromAsync(a.list({ prefix: ["search", "q"] }))).length, 0);
  } finally {
    a.close();
    b.close();
    await Deno.remove(dir, { recursive: true });
  }
});
