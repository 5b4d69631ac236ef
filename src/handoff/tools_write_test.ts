import assert from "node:assert/strict";
import { SAVE } from "../../tests/support/handoff_tools.ts";
import { call, withMcpClient } from "../../tests/support/mcp.ts";

Deno.test("bad input comes back as isError results that say what is allowed", async () => {
  await withMcpClient(
    { toolsets: "handoff", env: { HANDOFF_CONVERSATION_MAX_BYTES: "2048" } },
    async ({ client }) => {
      const cases: [string, Record<string, unknown>, RegExp][] = [
        ["handoff_save", { ...SAVE, key: "a b" }, /outside A-Z a-z 0-9 _ -/],
        ["handoff_save", { ...SAVE, key: "stats" }, /reserved/],
        ["handoff_save", { ...SAVE, conversation: "x".repeat(2049) }, /at most 2048 bytes/],
        ["handoff_load", { key: "missing" }, /no handoff has key "missing"/],
        ["handoff_append", { key: "missing", chunk: "x" }, /no handoff has key/],
        ["handoff_merge", { keys: ["a", "a"] }, /repeated/],
        ["handoff_clear", {}, /confirm: "DELETE ALL"/],
        ["handoff_search", { created_before: "soon" }, /ISO-8601/],
        ["handoff_delete_comment", { key: "missing", comment_id: "x" }, /no handoff has key/],
      ];
      for (const [tool, args, message] of cases) {
        const r = await call(client, tool, args);
        assert.equal(r.isError, true, `${tool} ${JSON.stringify(args).slice(0, 60)}`);
        assert.match(r.text, message);
      }
    },
  );
});

Deno.test("a save with a progress token gets increasing progress notifications", async () => {
  await withMcpClient({ toolsets: "handoff" }, async ({ client }) => {
    const conversation = "## User\n" + "x".repeat(900_000);
    const seen: { progress: number; total?: number }[] = [];
    const result = await client.callTool(
      { name: "handoff_save", arguments: { key: "big", summary: "s", conversation } },
      undefined,
      { onprogress: (p) => void seen.push({ progress: p.progress, total: p.total }) },
    );
    assert.notEqual(result.isError, true);
    assert.ok(seen.length >= 3, `got ${seen.length} notifications`);
    for (let i = 1; i < seen.length; i++) assert.ok(seen[i].progress > seen[i - 1].progress);
    const last = seen[seen.length - 1];
    assert.equal(last.progress, last.total);
  });
});

Deno.test("the audit log holds JSON lines with tool, key, sizes and outcome, never text", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/audit.jsonl`;
  try {
    await withMcpClient(
      { toolsets: "handoff", env: { HANDOFF_AUDIT_LOG: path } },
      async ({ client }) => {
        await call(client, "handoff_save", SAVE);
        await call(client, "handoff_load", { key: "design" });
        await call(client, "handoff_load", { key: "nope" });
        // A model that puts text where a key goes gets an error; the log must not keep the text.
        await call(client, "handoff_load", { key: "secret launch plan for friday" });
        await call(client, "handoff_merge", { keys: ["design", "secret merge words"] });
        await Promise.all(
          Array.from(
            { length: 20 },
            (_, i) => call(client, "handoff_append", { key: "design", chunk: `secret-${i}` }),
          ),
        );
      },
    );
    const raw = await Deno.readTextFile(path);
    for (
      const secret of [
        "chunked store",
        "chunks under a manifest",
        "secret-",
        "Claude Desktop",
        "launch plan",
        "merge words",
      ]
    ) {
      assert.ok(!raw.includes(secret), `the log must not contain "${secret}"`);
    }
    const lines = raw.trimEnd().split("\n").map((l) => JSON.parse(l));
    const size = new TextEncoder().encode(SAVE.conversation).byteLength;
    assert.equal(lines.length, 25);
    assert.deepEqual(
      { ...lines[0], time: "t", ms: 0 },
      {
        time: "t",
        tool: "handoff_save",
        via: "mcp",
        key: "design",
        bytes_in: size,
        bytes: size,
        evicted: null,
        outcome: "ok",
        ms: 0,
      },
    );
    assert.equal(lines[1].bytes, size);
    assert.equal(lines[2].outcome, "error");
    assert.equal(lines[2].error_kind, "not_found");
    assert.deepEqual(
      [lines[3].key, lines[3].error_kind, lines[4].keys, lines[4].error_kind],
      ["(invalid)", "invalid", ["design", "(invalid)"], "invalid"],
    );
    assert.ok(lines.slice(5).every((l) => l.tool === "handoff_append" && l.outcome === "ok"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
