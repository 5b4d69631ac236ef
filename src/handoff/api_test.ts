import assert from "node:assert/strict";
import { loadConfig } from "../config.ts";
import { createHandler, type Handler } from "../http/handler.ts";
import { loadToolsets } from "../toolsets.ts";
import { defaultCaller } from "../tools/caller.ts";

const TOKEN = "t".repeat(40);

async function withApi(
  env: Record<string, string>,
  fn: (
    api: (method: string, path: string, body?: unknown, headers?: HeadersInit) => Promise<Response>,
  ) => Promise<void>,
): Promise<void> {
  const vars = new Map(Object.entries({ KV_PATH: ":memory:", ...env }));
  const config = loadConfig(vars);
  const kv = await Deno.openKv(":memory:");
  const toolsets = loadToolsets(vars);
  const handler: Handler = createHandler({
    kv,
    config,
    toolsets,
    token: TOKEN,
    caller: defaultCaller(config),
  });
  const api = (method: string, path: string, body?: unknown, headers: HeadersInit = {}) =>
    handler(
      new Request(`http://127.0.0.1:8787/${path}`, {
        method,
        headers: body === undefined ? headers : { "content-type": "application/json", ...headers },
        body: body === undefined
          ? undefined
          : typeof body === "string"
          ? body
          : JSON.stringify(body),
      }),
    );
  try {
    await fn(api);
  } finally {
    await handler.close();
    kv.close();
  }
}

const BASE = `${TOKEN}/api`;
const SAVE = {
  key: "design",
  summary: "Store design",
  conversation: "## User\nq\n## Assistant\na\n",
  tags: ["kv"],
};

Deno.test("the handoff API saves, lists, searches, loads, merges, counts and deletes", async () => {
  await withApi({}, async (api) => {
    const created = await api("POST", `${BASE}/handoffs`, SAVE);
    assert.equal(created.status, 201);
    assert.equal(created.headers.get("location"), `/${TOKEN}/api/handoffs/design`);
    assert.equal((await created.json()).overwritten, false);
    const again = await api("POST", `${BASE}/handoffs`, { ...SAVE, summary: "v2" });
    assert.equal(again.status, 200);
    assert.equal((await again.json()).overwritten, true);
    await api("POST", `${BASE}/handoffs`, {
      key: "other",
      summary: "Other",
      conversation: "## User\nLEASE talk\n",
      status: "pending",
    });

    const list = await (await api("GET", `${BASE}/handoffs?limit=1`)).json();
    assert.deepEqual(list.handoffs.map((h: { key: string }) => h.key), ["other"]);
    assert.equal(list.has_more, true);
    const next = await (await api("GET", `${BASE}/handoffs?limit=1&cursor=${list.next_cursor}`))
      .json();
    assert.deepEqual(next.handoffs.map((h: { key: string }) => h.key), ["design"]);
    assert.equal(next.handoffs[0].conversation, undefined, "lists never carry conversations");

    const found = await (await api("GET", `${BASE}/handoffs?query=lease`)).json();
    assert.deepEqual(found.handoffs.map((h: { key: string }) => h.key), ["other"]);
    const tagged = await (await api("GET", `${BASE}/handoffs?tags=kv,web&status=active`)).json();
    assert.deepEqual(tagged.handoffs.map((h: { key: string }) => h.key), ["design"]);

    const loaded = await (await api("GET", `${BASE}/handoffs/design?max_messages=1`)).json();
    assert.equal(loaded.conversation, "## Assistant\na\n");
    assert.equal(loaded.messages_omitted, 1);
    assert.equal(loaded.summary, "v2");

    const merged = await api("POST", `${BASE}/handoffs/merge`, {
      keys: ["design", "other"],
      new_key: "both",
    });
    assert.equal(merged.status, 201);
    assert.deepEqual((await merged.json()).merged_from, ["design", "other"]);

    const stats = await (await api("GET", `${BASE}/stats`)).json();
    assert.equal(stats.count, 3);
    assert.equal(stats.limits.conversation_max_bytes, 1024 * 1024);

    const deleted = await api("DELETE", `${BASE}/handoffs/both`);
    assert.equal(deleted.status, 200);
    assert.equal((await deleted.json()).deleted.key, "both");
    const gone = await api("GET", `${BASE}/handoffs/both`);
    assert.equal(gone.status, 404);
    assert.deepEqual(await gone.json(), {
      error:
        'Cannot load handoff: no handoff has key "both" (handoff_list or handoff_search show the keys)',
      kind: "not_found",
    });
  });
});

Deno.test("the handoff API maps each store error to its status", async () => {
  await withApi(
    { HANDOFF_MAX_COUNT: "1", HANDOFF_EVICT: "false", HANDOFF_CONVERSATION_MAX_BYTES: "1024" },
    async (api) => {
      const expect = async (res: Promise<Response>, status: number, message: RegExp) => {
        const r = await res;
        const body = await r.json();
        assert.equal(r.status, status, JSON.stringify(body));
        assert.match(body.error, message);
      };
      await expect(api("POST", `${BASE}/handoffs`, { ...SAVE, extra: 1 }), 400, /extra/);
      await expect(api("POST", `${BASE}/handoffs`, { summary: "s" }), 400, /conversation/);
      await expect(api("POST", `${BASE}/handoffs`, "{not json"), 400, /not valid JSON/);
      await expect(
        api("POST", `${BASE}/handoffs`, JSON.stringify(SAVE), { "content-type": "text/plain" }),
        400,
        /Content-Type must be application\/json/,
      );
      await expect(api("POST", `${BASE}/handoffs`, { ...SAVE, key: "merge" }), 400, /reserved/);
      await expect(
        api("POST", `${BASE}/handoffs`, { ...SAVE, conversation: "x".repeat(1025) }),
        413,
        /at most 1024 bytes/,
      );
      assert.equal((await api("POST", `${BASE}/handoffs`, SAVE)).status, 201);
      await expect(
        api("POST", `${BASE}/handoffs`, { ...SAVE, key: "second" }),
        409,
        /eviction is off/,
      );
      await expect(api("GET", `${BASE}/handoffs?limit=0`), 400, /limit must be a whole number/);
      await expect(api("GET", `${BASE}/handoffs/bad%20key`), 400, /outside A-Z/);
      await expect(
        api("POST", `${BASE}/handoffs/merge`, { keys: ["design", "nope"] }),
        404,
        /no handoff has key "nope"/,
      );
      const wrong = await api("GET", `${BASE}/handoffs/merge`);
      assert.equal(wrong.status, 405);
      assert.equal(wrong.headers.get("allow"), "POST");
      await wrong.body?.cancel();
      await expect(api("GET", `${BASE}/handoffs/merge`), 405, /use POST/);
      await expect(api("PUT", `${BASE}/handoffs/design`), 405, /use GET, DELETE/);
    },
  );
});

Deno.test("the handoff API needs the token and the handoff toolset", async () => {
  await withApi({}, async (api) => {
    const noToken = await api("GET", "api/handoffs");
    assert.equal(noToken.status, 404);
    await noToken.body?.cancel();
    const bearer = await api("GET", "api/stats", undefined, { authorization: `Bearer ${TOKEN}` });
    assert.equal(bearer.status, 200);
    await bearer.body?.cancel();
  });
  await withApi({ TOOLSETS: "focus" }, async (api) => {
    const off = await api("GET", `${BASE}/handoffs`);
    assert.equal(off.status, 404);
    await off.body?.cancel();
  });
});

Deno.test("API calls are audited with via http", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await withApi({ HANDOFF_AUDIT_LOG: `${dir}/a.jsonl` }, async (api) => {
      await (await api("POST", `${BASE}/handoffs`, SAVE)).body?.cancel();
      await (await api("DELETE", `${BASE}/handoffs/nope`)).body?.cancel();
    });
    const lines = (await Deno.readTextFile(`${dir}/a.jsonl`)).trim().split("\n").map((l) =>
      JSON.parse(l)
    );
    assert.deepEqual(lines.map((l) => [l.tool, l.via, l.key, l.outcome]), [
      ["handoff_save", "http", "design", "ok"],
      ["handoff_clear", "http", "nope", "error"],
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
