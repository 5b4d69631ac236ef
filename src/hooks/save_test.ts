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

Deno.test("save-transcript of the session /clear starts saves nothing (no junk handoff)", async () => {
  await withSession(async (env, transcript) => {
    await Deno.copyFile(new URL("session_after_clear.jsonl", FIXTURES), transcript);
    const out = await runHookHere("save-transcript", {
      env,
      args: ["--project", "p"],
      stdin: hookJson(transcript),
    });
    assert.deepEqual(out.stderr, [
      `handoff-mcp save-transcript: nothing to save for ${KEY}: no conversation turns (only commands or client notes)`,
    ]);
    const listed = await withHookStore(env, (call) => call("handoff_list", {}));
    assert.deepEqual(listed.handoffs, [], "nothing was written");
  });
});

Deno.test("save-transcript of a compacted session saves its turns without command markup or the synthetic reply", async () => {
  await withSession(async (env, transcript) => {
    await Deno.copyFile(new URL("session_compact.jsonl", FIXTURES), transcript);
    const out = await runHookHere("save-transcript", {
      env,
      args: ["--project", "p"],
      stdin: hookJson(transcript),
    });
    assert.match(out.stderr[0], /saved .*: 4 messages/);
    const h = await withHookStore(env, (call) => call("handoff_load", { key: KEY }));
    assert.equal(h.title, "Claude Code: The retry test is flaky. Can you make it deterministic?");
    assert.equal(
      h.conversation,
      "## User\n\nThe retry test is flaky. Can you make it deterministic?\n\n" +
        "## Assistant\n\nThe test sleeps on a real clock; I replaced it with a fake timer.\n\n" +
        "## User\n\nNow run the whole suite.\n\n## Assistant\n\nAll 42 tests pass.\n\n",
    );
  });
});

Deno.test("save-transcript saves a session with lone surrogates and null lines, counting what it skipped", async () => {
  await withSession(async (env, transcript) => {
    await Deno.copyFile(new URL("session_broken.jsonl", FIXTURES), transcript);
    const out = await runHookHere("save-transcript", {
      env,
      args: ["--project", "p"],
      stdin: hookJson(transcript),
    });
    assert.equal(out.stderr.length, 1, out.stderr.join("\n"));
    assert.match(
      out.stderr[0],
      /^handoff-mcp save-transcript: saved .*: 2 messages, \d+ bytes; 5 line\(s\) skipped \(not a JSON object/,
    );
    const h = await withHookStore(env, (call) => call("handoff_load", { key: KEY }));
    assert.equal(h.title, "Claude Code: Summarise the log \uFFFD please");
    assert.match(String(h.conversation), /^## User\n\nSummarise the log \uFFFD please\n\n/);
    assert.match(String(h.conversation), /The last deploy succeeded \uFFFD\.\n\n$/);
  });
});

Deno.test("save-transcript refuses a device, a pipe and a folder at once, and a file over TRANSCRIPT_MAX_BYTES", async () => {
  await withSession(async (env, transcript) => {
    const fifo = `${transcript}.fifo`;
    await new Deno.Command("mkfifo", { args: [fifo] }).output();
    await Deno.writeTextFile(transcript, line("user", "x".repeat(5000)));
    // A generous timeout: the old reader ran into it on /dev/zero, the check answers at once.
    const slow = { ...env, HOOK_TIMEOUT_MS: "60000" };
    const cases: [Record<string, string>, string, RegExp][] = [
      [slow, "/dev/zero", /the transcript \/dev\/zero is not a regular file/],
      [slow, fifo, /is not a regular file/],
      [slow, "/tmp", /is not a regular file/],
      [
        { ...env, TRANSCRIPT_MAX_BYTES: "2048" },
        transcript,
        /is \d+ bytes; at most 2048 bytes \(TRANSCRIPT_MAX_BYTES\) are read/,
      ],
    ];
    for (const [caseEnv, path, message] of cases) {
      const started = performance.now();
      const out = await runHookHere("save-transcript", {
        env: caseEnv,
        args: ["--transcript", path, "--session-id", SESSION, "--project", "p"],
      });
      assert.equal(out.code, 0);
      assert.equal(out.stderr.length, 1, out.stderr.join("\n"));
      assert.match(out.stderr[0], message);
      // Not a speed claim: the old code read /dev/zero until HOOK_TIMEOUT_MS (60 s here).
      assert.ok(performance.now() - started < 30_000, `${path} was refused before the timeout`);
    }
    await Deno.remove(fifo);
    const listed = await withHookStore(env, (call) => call("handoff_list", {}));
    assert.deepEqual(listed.handoffs, [], "nothing was written");
  });
});

Deno.test("save-transcript skips and counts a line over TRANSCRIPT_LINE_MAX_BYTES, saving the rest", async () => {
  await withSession(async (env, transcript) => {
    const big = line("assistant", "y".repeat(4000));
    await Deno.writeTextFile(transcript, line("user", "Q") + big + line("assistant", "A"));
    const out = await runHookHere("save-transcript", {
      env: { ...env, TRANSCRIPT_LINE_MAX_BYTES: "2048" },
      args: ["--transcript", transcript, "--session-id", SESSION, "--project", "p"],
    });
    assert.match(out.stderr[0], /saved .*: 2 messages, \d+ bytes; 1 line\(s\) skipped/);
    const h = await withHookStore(env, (call) => call("handoff_load", { key: KEY }));
    assert.equal(h.conversation, "## User\n\nQ\n\n## Assistant\n\nA\n\n");
  });
});
