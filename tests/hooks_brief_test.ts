/**
 * `--brief` end to end: over the local KV file and over a real server on a free port (token in
 * the path, or as bearer), and what it does when there is nothing, or no server, or no KV.
 */

import assert from "node:assert/strict";
import { ROOT, startServer, tempKvPath } from "./support/harness.ts";
import { runHookHere, withHookStore } from "./support/hooks.ts";

const PROJECT = "acme/widget";

/** A north star, a focus, a follow-up, table work for the caller, and a tagged handoff. */
async function seed(env: Record<string, string>): Promise<string> {
  return await withHookStore(env, async (call) => {
    await call("set_north_star", { project_id: PROJECT, text: "Ship widget v1" });
    await call("set_focus", {
      project_id: PROJECT,
      statement: "Fix the date parser",
      why: "shops need it",
    });
    await call("add_task", { project_id: PROJECT, body: "Rename temp variables", kind: "cleanup" });
    for (const workspace of [PROJECT, "acme/docs"]) {
      const { task } = await call("create_task", { title: `Review ${workspace}`, workspace });
      await call("create_handoff", {
        task_id: (task as { id: string }).id,
        to: "anonymous",
        context: "Please review",
      });
    }
    await call("create_task", { title: "Fix CI", workspace: PROJECT, assigned_to: "anonymous" });
    await call("handoff_save", {
      key: "design-notes",
      title: "Date parser design",
      summary: "How week dates are parsed",
      conversation: "## User\n\nHow?\n\n## Assistant\n\nLike this.",
      from_ai: "Claude Desktop",
      tags: ["project:acme/widget"],
    });
    return PROJECT;
  });
}

/** The get_state text, as a client of the same store gets it. */
async function stateText(env: Record<string, string>): Promise<string> {
  const { connect } = await import("../src/hooks/connection.ts");
  const conn = await connect({ env: new Map(Object.entries(env)), baseDir: ROOT, args: [] });
  try {
    return (await conn.call("get_state", { project_id: PROJECT })).text;
  } finally {
    await conn.close();
  }
}

function assertBrief(stdout: string, state: string, where: RegExp): void {
  const lines = stdout.trimEnd().split("\n");
  assert.ok(lines.length <= 40, `${lines.length} lines`);
  assert.match(lines[0], /^handoff-mcp session brief for project "acme\/widget", read from /);
  assert.match(lines[0], where);
  assert.match(lines[1], /^⚠ UNTRUSTED DATA \S+ follows/);
  assert.ok(stdout.includes(`\`\`\`text\n${state}\n\n`), "the get_state text, exactly");
  assert.match(stdout, /Rename temp variables/);
  assert.match(
    stdout,
    /Waiting for you \(anonymous\) in the table's workspaces:\n- "acme\/widget": handoffs to accept \w+; tasks \w+ \(2\)\n- "acme\/docs": handoffs to accept \w+ \(1\)\n/,
  );
  assert.match(
    stdout,
    /Latest handoff tagged project:acme\/widget: "Date parser design" from Claude Desktop, \d{4}-\d\d-\d\dT[\d:.]+Z, key design-notes/,
  );
  assert.match(lines.at(-1)!, /^State the north star first/);
}

Deno.test("--brief over the local KV file shows state, waiting work and the latest handoff", async () => {
  const kv = await tempKvPath();
  try {
    const env = { KV_PATH: kv.path, TABLE_DEFAULT_WORKSPACE: PROJECT };
    await seed(env);
    const out = await runHookHere("brief", { env, args: ["--project", PROJECT] });
    assert.equal(out.code, 0);
    assert.deepEqual(out.stderr, []);
    assertBrief(out.stdout, await stateText(env), /read from the KV at .*test\.kv:$/);
  } finally {
    await kv.cleanup();
  }
});

Deno.test("--brief over a real server: token in the URL or as bearer, never printed", async () => {
  const server = await startServer({ env: { TABLE_DEFAULT_WORKSPACE: PROJECT } });
  try {
    const inPath = { HANDOFF_URL: `${server.origin}/${server.token}/mcp` };
    await seed(inPath);
    const state = await stateText(inPath);
    for (
      const env of [inPath, { HANDOFF_URL: `${server.origin}/mcp`, HANDOFF_TOKEN: server.token }]
    ) {
      const out = await runHookHere("brief", { env, args: ["--project", PROJECT] });
      assert.deepEqual(out.stderr, []);
      assertBrief(out.stdout, state, new RegExp(`read from the server at ${server.origin}:$`));
      assert.ok(!out.stdout.includes(server.token));
    }
  } finally {
    await server.close();
  }
});

Deno.test("--brief says so when nothing is stored for the project, and --json wraps it for Gemini", async () => {
  const kv = await tempKvPath();
  try {
    const out = await runHookHere("brief", {
      env: { KV_PATH: kv.path },
      args: ["--project", "empty"],
    });
    assert.match(out.stdout, /Waiting for you \(anonymous\) in the table's workspaces: nothing\./);
    assert.match(out.stdout, /Latest handoff: none tagged project:empty\./);
    assert.match(out.stdout, /\nNothing is stored for "empty" yet: set a north star/);
    const json = await runHookHere("brief", {
      env: { KV_PATH: kv.path },
      args: ["--project", "empty", "--json"],
    });
    const parsed = JSON.parse(json.stdout);
    assert.equal(parsed.hookSpecificOutput.hookEventName, "SessionStart");
    assert.match(
      parsed.hookSpecificOutput.additionalContext,
      /^handoff-mcp session brief for project "empty"/,
    );
  } finally {
    await kv.cleanup();
  }
});

/** Runs `main.ts` with `args` in a child process, as a hook does. */
async function runMain(args: string[], env: Record<string, string>, stdin = "") {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "main.ts", ...args],
    cwd: ROOT,
    env: { NO_COLOR: "1", ...env },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(stdin));
  await writer.close();
  const out = await child.output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

Deno.test("the hooks exit 0 with one stderr line when the server or the KV file is unreachable", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const token = "s".repeat(32);
  const dir = await Deno.makeTempDir();
  await Deno.writeTextFile(`${dir}/file`, "");
  const hookJson = JSON.stringify({
    session_id: "abc",
    transcript_path: `${dir}/t.jsonl`,
    cwd: dir,
  });
  await Deno.writeTextFile(
    `${dir}/t.jsonl`,
    '{"type":"user","message":{"role":"user","content":"hi"}}\n',
  );
  try {
    const cases: [string[], Record<string, string>, RegExp][] = [
      [
        ["--brief"],
        { HANDOFF_URL: `http://127.0.0.1:${port}/${token}/mcp` },
        /^handoff-mcp brief: cannot reach the server at http:\/\/127\.0\.0\.1:\d+\/\[masked\]\/mcp: /,
      ],
      [
        ["--brief"],
        { HANDOFF_URL: `http://127.0.0.1:${port}/mcp`, HANDOFF_TOKEN: token },
        /^handoff-mcp brief: cannot reach the server/,
      ],
      [
        ["--brief"],
        { KV_PATH: `${dir}/file/handoff.kv` },
        /^handoff-mcp brief: cannot reach the local KV: /,
      ],
      [
        ["--save-transcript"],
        { HANDOFF_URL: `http://127.0.0.1:${port}/${token}/mcp` },
        /^handoff-mcp save-transcript: cannot reach the server/,
      ],
      [
        ["--save-transcript"],
        { KV_PATH: `${dir}/file/handoff.kv` },
        /^handoff-mcp save-transcript: cannot reach the local KV/,
      ],
    ];
    for (const [args, env, message] of cases) {
      const out = await runMain(args, env, hookJson);
      assert.equal(out.code, 0, out.stderr);
      assert.equal(out.stdout, "");
      const lines = out.stderr.trimEnd().split("\n");
      assert.equal(lines.length, 1, out.stderr);
      assert.match(lines[0], message);
      assert.ok(!out.stderr.includes(token), "the token is never printed");
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a hook gives up at HOOK_TIMEOUT_MS on a server that never answers, exiting 0", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held: Deno.Conn[] = [];
  const accepting = (async () => {
    for await (const conn of listener) held.push(conn); // accepted, never answered
  })();
  try {
    const url = `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}/mcp`;
    const out = await runMain(["--brief"], { HANDOFF_URL: url, HOOK_TIMEOUT_MS: "300" });
    assert.equal(out.code, 0);
    assert.equal(out.stdout, "");
    assert.equal(
      out.stderr.trimEnd(),
      "handoff-mcp brief: gave up after HOOK_TIMEOUT_MS (300 ms); the session goes on without the brief",
    );
  } finally {
    listener.close();
    for (const conn of held) conn.close();
    await accepting.catch(() => {});
  }
});

Deno.test("--brief masks a secret someone stored in the project's state", async () => {
  const kv = await tempKvPath();
  try {
    const env = { KV_PATH: kv.path };
    const key = `sk-ant-api03-${"Q".repeat(40)}`;
    await withHookStore(
      env,
      (call) => call("set_north_star", { project_id: "p", text: `Ship it (key ${key})` }),
    );
    const out = await runHookHere("brief", { env, args: ["--project", "p"] });
    assert.match(out.stdout, /NORTH STAR: Ship it \(key sk-ant-\[masked\]\)/);
    assert.ok(!out.stdout.includes("Q".repeat(20)));
  } finally {
    await kv.cleanup();
  }
});
