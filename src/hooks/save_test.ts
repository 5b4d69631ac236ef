import assert from "node:assert/strict";
import { startServer, tempKvPath } from "../../tests/support/harness.ts";
import { runHookHere, withHookStore } from "../../tests/support/hooks.ts";

const FIXTURES = new URL("../../tests/fixtures/claude_code/", import.meta.url);
const SESSION = "7f3c2a10-5b8e-4c1d-9a6f-2e4b8d0c1a35";
const KEY = `claude-code-${SESSION}`;

/** A temporary KV file, and a copy of a fixture transcript to grow. */
async function withSession(
  fn: (env: Record<string, string>, transcript: string) => Promise<void>,
): Promise<void> {
  const kv = await tempKvPath();
  const transcript = kv.path.replace(/test\.kv$/, `${SESSION}.jsonl`);
  try {
    await fn({ KV_PATH: kv.path }, transcript);
  } finally {
    await kv.cleanup();
  }
}

const hookJson = (transcript: string) =>
  JSON.stringify({ session_id: SESSION, transcript_path: transcript, cwd: "/nowhere" });

const line = (role: "user" | "assistant", text: string) =>
  JSON.stringify({
    type: role,
    message: { role, content: role === "user" ? text : [{ type: "text", text }] },
  }) + "\n";

Deno.test("save-transcript saves a session as its handoff, tagged with the project", async () => {
  await withSession(async (env, transcript) => {
    await Deno.copyFile(new URL("session_i18n.jsonl", FIXTURES), transcript);
    const out = await runHookHere("save-transcript", {
      env,
      args: ["--project", "acme/widget.js"],
      stdin: hookJson(transcript),
    });
    assert.equal(out.code, 0);
    assert.deepEqual(out.stdout, "");
    assert.match(
      out.stderr.join("\n"),
      new RegExp(`^handoff-mcp save-transcript: saved ${KEY}: 4 messages`),
    );
    await withHookStore(env, async (call) => {
      const h = await call("handoff_load", { key: KEY });
      assert.equal(h.from_ai, "Claude Code");
      assert.equal(h.from_project, "acme/widget.js");
      assert.deepEqual(h.tags, ["project:acme/widget.js", "claude-code"]);
      assert.equal(h.message_count, 4);
      assert.match(String(h.title), /^Claude Code: 日付パーサーのテストが失敗します。/);
      assert.match(String(h.conversation), /^## User\n\n日付パーサー/);
      const found = await call("handoff_search", { tags: ["project:acme/widget.js"] });
      assert.deepEqual((found.handoffs as { key: string }[]).map((x) => x.key), [KEY]);
    });
  });
});

Deno.test("save-transcript again adds only what is new, and nothing when nothing is", async () => {
  await withSession(async (env, transcript) => {
    const args = ["--project", "acme/widget"];
    await Deno.writeTextFile(
      transcript,
      line("user", "First question") + line("assistant", "First answer"),
    );
    await runHookHere("save-transcript", { env, args, stdin: hookJson(transcript) });
    const first = await withHookStore(env, (call) => call("handoff_load", { key: KEY }));
    const again = await runHookHere("save-transcript", { env, args, stdin: hookJson(transcript) });
    assert.match(again.stderr[0], /unchanged .*: 2 messages/);
    const same = await withHookStore(env, (call) => call("handoff_load", { key: KEY }));
    assert.equal(same.updated_at, first.updated_at, "a second run writes nothing");
    await Deno.writeTextFile(
      transcript,
      line("user", "Second question") + line("assistant", "Second answer"),
      {
        append: true,
      },
    );
    const grown = await runHookHere("save-transcript", { env, args, stdin: hookJson(transcript) });
    assert.match(grown.stderr[0], /appended .*: 4 messages/);
    const after = await withHookStore(env, (call) => call("handoff_load", { key: KEY }));
    assert.equal(
      after.conversation,
      "## User\n\nFirst question\n\n## Assistant\n\nFirst answer\n\n" +
        "## User\n\nSecond question\n\n## Assistant\n\nSecond answer\n\n",
    );
    assert.equal(after.created_at, first.created_at, "appended to, not saved anew");
  });
});

Deno.test("save-transcript keeps the newest messages of a session over the limit and says so", async () => {
  await withSession(async (env, transcript) => {
    const limited = { ...env, HANDOFF_CONVERSATION_MAX_BYTES: "2048" };
    const turns = Array.from(
      { length: 20 },
      (_, i) => line("user", `Question ${i} ${"ก".repeat(40)}`) + line("assistant", `Answer ${i}`),
    ).join("");
    await Deno.writeTextFile(transcript, turns);
    const out = await runHookHere("save-transcript", {
      env: limited,
      args: ["--transcript", transcript, "--session-id", SESSION, "--project", "p"],
    });
    assert.match(out.stderr[0], /saved .*: 40 messages, \d+ bytes \((\d+) oldest left out/);
    const h = await withHookStore(limited, (call) => call("handoff_load", { key: KEY }));
    const text = String(h.conversation);
    assert.ok(new TextEncoder().encode(text).length <= 2048);
    assert.match(
      text,
      /^\[handoff-mcp: this session is larger than the handoff limit \(2048 bytes\): its (\d+) oldest message\(s\) were left out/,
    );
    assert.ok(text.endsWith("## Assistant\n\nAnswer 19\n\n"), "the newest message is kept");
    assert.ok(!text.includes("Question 0 "), "the oldest is dropped");
    assert.match(String(h.summary), /Its \d+ oldest messages did not fit the handoff limit\./);
    const again = await runHookHere("save-transcript", {
      env: limited,
      args: ["--transcript", transcript, "--session-id", SESSION, "--project", "p"],
    });
    assert.match(again.stderr[0], /unchanged/, "a cut session saved again is unchanged too");
  });
});

Deno.test("save-transcript refuses a bad session id or a missing transcript, exiting 0 with one line", async () => {
  await withSession(async (env, transcript) => {
    await Deno.writeTextFile(transcript, line("user", "hi"));
    const cases: [string | undefined, string[], RegExp][] = [
      [
        JSON.stringify({ session_id: "../../etc", transcript_path: transcript }),
        [],
        /session_id must be/,
      ],
      [
        JSON.stringify({ session_id: SESSION, transcript_path: "/no/such.jsonl" }),
        [],
        /cannot read the transcript/,
      ],
      [undefined, [], /no transcript: pass hook JSON/],
      ["not json", [], /stdin is not hook JSON/],
    ];
    for (const [stdin, args, message] of cases) {
      const out = await runHookHere("save-transcript", { env, args, stdin });
      assert.equal(out.code, 0);
      assert.equal(out.stderr.length, 1, out.stderr.join("\n"));
      assert.match(out.stderr[0], message);
    }
    const listed = await withHookStore(env, (call) => call("handoff_list", {}));
    assert.deepEqual(listed.handoffs, [], "nothing was written");
  });
});

Deno.test("save-transcript replaces a saved conversation that is not the start of the session", async () => {
  await withSession(async (env, transcript) => {
    const args = ["--project", "p"];
    await Deno.writeTextFile(transcript, line("user", "Question") + line("assistant", "Answer"));
    await withHookStore(
      env,
      (call) =>
        call("handoff_save", { key: KEY, summary: "s", conversation: "## User\n\nsomething else" }),
    );
    const out = await runHookHere("save-transcript", { env, args, stdin: hookJson(transcript) });
    assert.match(out.stderr[0], /replaced .*: 2 messages/);
    const h = await withHookStore(env, (call) => call("handoff_load", { key: KEY }));
    assert.equal(h.conversation, "## User\n\nQuestion\n\n## Assistant\n\nAnswer\n\n");
  });
});

Deno.test("save-transcript over a real server on a free port saves once, then adds nothing", async () => {
  const server = await startServer();
  try {
    await withSession(async (_local, transcript) => {
      const env = { HANDOFF_URL: `${server.origin}/mcp`, HANDOFF_TOKEN: server.token };
      await Deno.copyFile(new URL("session_tools.jsonl", FIXTURES), transcript);
      const args = ["--project", "acme/widget"];
      const first = await runHookHere("save-transcript", {
        env,
        args,
        stdin: hookJson(transcript),
      });
      assert.match(first.stderr.join("\n"), /^handoff-mcp save-transcript: saved .*: 6 messages/);
      const again = await runHookHere("save-transcript", {
        env,
        args,
        stdin: hookJson(transcript),
      });
      assert.match(again.stderr.join("\n"), /unchanged .*: 6 messages/);
      assert.ok(!first.stderr.join("").includes(server.token));
      const h = await withHookStore(env, (call) => call("handoff_load", { key: KEY }));
      assert.equal(h.message_count, 6);
      assert.deepEqual(h.tags, ["project:acme/widget", "claude-code"]);
    });
  } finally {
    await server.close();
  }
});
