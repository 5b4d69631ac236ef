import assert from "node:assert/strict";
import { countMessages } from "../handoff/store_messages.ts";
import { fitConversation } from "./fit.ts";
import { convertTranscript, renderMessages, TranscriptConverter } from "./transcript.ts";
import { TOOL_INPUT_MAX_CHARS, TOOL_RESULT_MAX_LINES } from "./tool_summary.ts";

const FIXTURES = new URL("../../tests/fixtures/claude_code/", import.meta.url);
const fixture = (name: string) => Deno.readTextFileSync(new URL(name, FIXTURES));

Deno.test("convertTranscript() keeps user and assistant text, tool calls and results as summaries", () => {
  const { messages, skippedLines, firstPrompt } = convertTranscript(fixture("session_tools.jsonl"));
  assert.deepEqual(messages.map((m) => m.role), [
    "user",
    "assistant",
    "user",
    "assistant",
    "user",
    "assistant",
  ]);
  assert.equal(skippedLines, 1, "the line cut mid-write is skipped, not fatal");
  assert.equal(firstPrompt, "The date parser test fails. Can you fix it?");
  const [, work] = messages;
  // One assistant turn: its text, each call and each result, in order, across entries.
  assert.match(work.body, /^I'll run the tests to see the failure\.\n\n```tool call: Bash\n/);
  assert.match(work.body, /```tool result: Bash · error · 43 lines\nrunning 3 tests/);
  assert.ok(work.body.includes(`… ${43 - TOOL_RESULT_MAX_LINES} more lines\n`));
  assert.ok(!work.body.includes("at line 39"), "a long result is cut");
  assert.match(work.body, /```tool result: Read · ok · 3 lines\n {5}1\texport function parse/);
  assert.match(work.body, /```tool result: Edit · ok · 1 line\n/);
  assert.ok(work.body.endsWith("```ts\nreturn parseWeekDate(s) ?? new Date(s);\n```"));
  assert.ok(!work.body.includes("Let me look at the test first"), "thinking is left out");
});

Deno.test("convertTranscript() leaves out meta entries, side chains, summaries and snapshots", () => {
  const text = renderMessages(convertTranscript(fixture("session_tools.jsonl")).messages);
  assert.ok(!text.includes("Caveat: The messages below"));
  assert.ok(!text.includes("sidechain prompt"));
  assert.ok(!text.includes("Fix the date parser\n"));
  assert.ok(!text.includes("trackedFileBackups"));
});

Deno.test("convertTranscript() turns images into one line with their type and size", () => {
  const { messages } = convertTranscript(fixture("session_tools.jsonl"));
  assert.equal(
    messages[2].body,
    "Here is the screenshot of the error:\n\n[image: image/png, 3 KB]",
  );
  assert.match(messages[3].body, /captured\n\[image: image\/jpeg, 3 KB\]/);
  assert.ok(!renderMessages(messages).includes("iVBORw0KGgo"), "no base64 is kept");
});

Deno.test("convertTranscript() escapes lines the handoff store would read as a new message", () => {
  const { messages } = convertTranscript(fixture("session_tools.jsonl"));
  assert.equal(
    messages[4].body,
    "\\User: this line looks like a speaker\n\\## Assistant\nand so does this one",
  );
  const text = renderMessages(messages);
  assert.equal(countMessages(text), messages.length, "the store counts exactly these messages");
});

Deno.test("convertTranscript() keeps Japanese and Thai text byte for byte", () => {
  const { messages } = convertTranscript(fixture("session_i18n.jsonl"));
  assert.deepEqual(messages.map((m) => m.role), ["user", "assistant", "user", "assistant"]);
  assert.equal(
    messages[0].body,
    "日付パーサーのテストが失敗します。直してください。北極星は「v1を出す」です。",
  );
  assert.match(messages[1].body, /^承知しました。まずテストを実行します。\n\n```tool call: Bash\n/);
  assert.match(messages[1].body, /```tool result: Bash · ok · 1 line\nทดสอบ ผ่าน\n```$/);
  assert.equal(messages[2].body, "ช่วยสรุปเป็นภาษาไทยด้วยครับ");
  assert.equal(messages[3].body, "สรุป: แก้ตัวแยกวิเคราะห์วันที่แล้ว การทดสอบผ่านทั้งหมด 🎉");
});

Deno.test("convertTranscript() masks secrets in prompts, tool inputs, tool results and answers", () => {
  const raw = fixture("session_secrets.jsonl");
  const text = renderMessages(convertTranscript(raw, ["hunter2hunter2"]).messages);
  for (
    const secret of [
      "A1b2C3d4E5f6G7h8I9j0",
      "Zy9Xw8Vu7Ts6Rq5Po4Nm",
      "aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6",
      "abcdefghijklmnopqrstuvwxyz0123456789",
      "IOSFODNN7EXAMPLE",
      "AbCdEfGhIjKlMnOpQrStUvWx",
      "SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q",
      "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9",
      "Zq3vK9mW2xR7tL5nB8cD4fG6hJ1kP0sA",
      "hunter2hunter2",
      "abcdefghijklmnop1234",
      "MIIEpAIBAAKCAQEA",
    ]
  ) {
    assert.ok(raw.includes(secret), `the fixture holds ${secret}`);
    assert.ok(!text.includes(secret), `${secret} is masked`);
  }
  assert.match(text, /Use my key sk-ant-\[masked\] and the OpenAI one sk-\[masked\] to test\./);
  assert.match(text, /server: http:\/\/127\.0\.0\.1:8787\/\[masked\]\/mcp/);
});

Deno.test("convertTranscript() keeps a very long turn whole and cuts a very long tool input", () => {
  const long = "長い説明。".repeat(60_000) + "END";
  const lines = [
    { type: "user", message: { role: "user", content: long } },
    {
      type: "assistant",
      message: {
        role: "assistant",
        content: [{
          type: "tool_use",
          id: "t1",
          name: "Write",
          input: { content: "x".repeat(50_000) },
        }],
      },
    },
  ].map((l) => JSON.stringify(l)).join("\n");
  const { messages } = convertTranscript(lines);
  assert.equal(messages[0].body, long, "user text is verbatim, however long");
  const json = JSON.stringify({ content: "x".repeat(50_000) });
  assert.ok(messages[1].body.includes(`(${json.length - TOOL_INPUT_MAX_CHARS} more characters)`));
  assert.ok(messages[1].body.length < 1000);
});

Deno.test("convertTranscript() of nothing usable is no messages", () => {
  assert.deepEqual(convertTranscript("").messages, []);
  assert.deepEqual(convertTranscript('{"type":"summary","summary":"x"}\nnot json\n').messages, []);
});

Deno.test("convertTranscript() reads a transcript Claude Code 2.1.197 wrote (an MCP tool call)", () => {
  const { messages, skippedLines } = convertTranscript(
    fixture("recorded_claude_code_2.1.197.jsonl"),
  );
  assert.equal(skippedLines, 0);
  assert.deepEqual(messages, [
    { role: "user", body: "What should I work on first?" },
    {
      role: "assistant",
      body: [
        '```tool call: mcp__handoff__get_state\n{"project_id":"acme/widget"}\n```',
        "",
        "```tool result: mcp__handoff__get_state · ok · 4 lines",
        "🎯 NORTH STAR: Ship widget v1 to the first ten shops",
        "▶ 本丸（今やる1つ）: Make the date parser read week dates",
        "— 以下は後処理（北極星達成後・今は着手しない）—",
        "  （なし）",
        "```",
        "",
        "Done: the parser reads week dates.",
      ].join("\n"),
    },
  ]);
});

Deno.test("convertTranscript() skips and counts every line that is not a JSON object, null included", () => {
  const { messages, skippedLines } = convertTranscript(fixture("session_broken.jsonl"));
  assert.equal(skippedLines, 5, "null, [], 42, a string and true");
  assert.deepEqual(messages.map((m) => m.role), ["user", "assistant"]);
});

Deno.test("convertTranscript() replaces a lone surrogate with U+FFFD instead of failing the session", () => {
  const { messages, firstPrompt } = convertTranscript(fixture("session_broken.jsonl"));
  assert.equal(messages[0].body, "Summarise the log \uFFFD please");
  assert.equal(firstPrompt, "Summarise the log \uFFFD please");
  assert.match(messages[1].body, /deploy ok \uFFFD\n```/);
  assert.ok(messages[1].body.endsWith("The last deploy succeeded \uFFFD."));
  for (const m of messages) assert.ok(m.body.isWellFormed(), "every body is well-formed UTF-16");
});

Deno.test("convertTranscript() of the session /clear starts holds no turn (no command markup)", () => {
  const { messages, firstPrompt, skippedLines } = convertTranscript(
    fixture("session_after_clear.jsonl"),
  );
  assert.deepEqual(messages, []);
  assert.equal(firstPrompt, undefined);
  assert.equal(skippedLines, 0);
});

Deno.test("convertTranscript() leaves out /compact's markup, its synthetic reply, hook and bash markup", () => {
  const { messages } = convertTranscript(fixture("session_compact.jsonl"));
  assert.deepEqual(messages, [
    { role: "user", body: "The retry test is flaky. Can you make it deterministic?" },
    {
      role: "assistant",
      body: "The test sleeps on a real clock; I replaced it with a fake timer.",
    },
    { role: "user", body: "Now run the whole suite." },
    { role: "assistant", body: "All 42 tests pass." },
  ]);
  const text = renderMessages(messages);
  for (
    const junk of ["command-name", "No response requested.", "Compacted", "Caveat", "lint: ok"]
  ) {
    assert.ok(!text.includes(junk), `${junk} is left out`);
  }
});

Deno.test("convertTranscript() keeps a prompt that only mentions a tag name verbatim", () => {
  const line = JSON.stringify({
    type: "user",
    message: { role: "user", content: "Why does <command-name> appear in my transcript?" },
  });
  assert.equal(
    convertTranscript(line).messages[0].body,
    "Why does <command-name> appear in my transcript?",
  );
});

Deno.test("TranscriptConverter with keepBytes holds only the newest messages, and fits the same text", () => {
  // Short turns, long user prompts and one assistant turn of 400 tool calls (a long autonomous
  // stretch is a single assistant message): every shape the window cuts.
  const lines: string[] = [];
  const user = (text: string) => JSON.stringify({ type: "user", message: { content: text } });
  const said = (text: string) =>
    JSON.stringify({ type: "assistant", message: { content: [{ type: "text", text }] } });
  for (let i = 0; i < 300; i++) {
    lines.push(user(`Question ${i} ${"ก".repeat(i % 7 === 0 ? 3000 : 40)}`), said(`Answer ${i}`));
    if (i === 150 || i === 299) {
      for (let t = 0; t < 400; t++) {
        const id = `t${i}_${t}`;
        lines.push(
          JSON.stringify({
            type: "assistant",
            message: { content: [{ type: "tool_use", id, name: "Bash", input: { n: t } }] },
          }),
          JSON.stringify({
            type: "user",
            message: { content: [{ type: "tool_result", tool_use_id: id, content: `ok ${t}` }] },
          }),
        );
      }
    }
  }
  for (const maxBytes of [4096, 20_000, 60_000]) {
    const all = convertTranscript(lines.join("\n"));
    const windowed = new TranscriptConverter([], maxBytes);
    for (const line of lines) windowed.addLine(line);
    const kept = windowed.finish();
    const total = kept.messages.length + kept.dropped.messages;
    assert.equal(total, all.messages.length, "every message is counted");
    assert.ok(kept.dropped.messages > 0, "the oldest were let go while reading");
    const keptBytes = kept.messages.reduce(
      (n, m) => n + new TextEncoder().encode(m.body).length,
      0,
    );
    assert.ok(keptBytes < 3 * maxBytes + 20_000, `${keptBytes} bytes held for ${maxBytes}`);
    assert.equal(kept.firstPrompt, all.firstPrompt, "the title still comes from the first prompt");
    const whole = fitConversation(all.messages, maxBytes);
    const fitted = fitConversation(kept.messages, maxBytes, kept.dropped);
    assert.equal(fitted.text, whole.text);
    assert.equal(fitted.droppedMessages, whole.droppedMessages);
  }
});

Deno.test("byteLength() counts long texts as utf8Bytes does, pairs split across its slices included", async () => {
  const { utf8Bytes } = await import("../kit/text.ts");
  const { byteLength } = await import("./transcript.ts");
  const pieces = ["a", "é", "日", "😀", "\uD83D", "\uDE00", "\n"];
  for (let seed = 1; seed <= 40; seed++) {
    let text = "x".repeat(16 * 1024 - (seed % 3)); // a pair may straddle the 16 Ki boundary
    let n = seed;
    for (let i = 0; i < 20_000; i++) {
      n = (n * 1103515245 + 12345) % 2147483648;
      text += pieces[n % pieces.length];
    }
    assert.equal(byteLength(text), utf8Bytes(text), `seed ${seed}`);
  }
});
