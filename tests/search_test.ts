/**
 * Search end to end: two server processes on one KV file, every kind written through its tools
 * in one process and found in the other (pending at once, then from segments), ChatGPT's shapes,
 * folding, dense scripts, phrases and prefixes, filters, deletions never returned.
 */

import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { randomToken } from "../src/kit/ids.ts";
import { spawnServer, tempKvPath } from "./support/harness.ts";

type Tool = (name: string, args?: Record<string, unknown>) => Promise<{
  text: string;
  isError: boolean;
  structured: Record<string, unknown>;
  content: { type: string; text: string }[];
}>;

async function client(origin: string, token: string, name: string): Promise<[Tool, Client]> {
  const c = new Client({ name, version: "1.0.0" });
  await c.connect(new StreamableHTTPClientTransport(new URL(`${origin}/${token}/mcp`)));
  const tool: Tool = async (tool, args = {}) => {
    const r = await c.callTool({ name: tool, arguments: args });
    const content = r.content as { type: string; text: string }[];
    if (tool !== "search" && tool !== "fetch") {
      assert.notEqual(r.isError, true, `${tool}: ${content.map((x) => x.text).join("\n")}`);
    }
    return {
      text: content.map((x) => x.text).join("\n"),
      isError: r.isError === true,
      structured: (r.structuredContent ?? {}) as Record<string, unknown>,
      content,
    };
  };
  return [tool, c];
}

interface Found {
  results: { id: string; kind: string; title: string; snippet: string; url: string }[];
  pending: number;
  has_more: boolean;
  next_cursor: string | null;
}

async function search(tool: Tool, args: Record<string, unknown>): Promise<Found> {
  const r = await tool("search", args);
  assert.equal(r.isError, false, r.text);
  return r.structured as unknown as Found;
}

/** Searches until `ok` holds (the folder runs in the background), at most 10 s. */
async function eventually(tool: Tool, args: Record<string, unknown>, ok: (f: Found) => boolean) {
  const until = Date.now() + 10_000;
  for (;;) {
    const found = await search(tool, args);
    if (ok(found) || Date.now() > until) return found;
    await new Promise((r) => setTimeout(r, 200));
  }
}

const kindsOf = (f: Found) => f.results.map((r) => r.kind);

Deno.test("search: two processes on one KV file find every kind, at once and after folding", async () => {
  const { path, cleanup } = await tempKvPath();
  const token = randomToken(32);
  const env = { KV_PATH: path, AUTH_TOKEN: token, SEARCH_FOLD_MS: "100" };
  const a = await spawnServer(env);
  const b = await spawnServer(env);
  const [writer, wc] = await client(a.origin, token, "writer");
  const [reader, rc] = await client(b.origin, token, "reader");
  try {
    const disc = await writer("create_discussion", { title: "Retries", body: "zebraword first" });
    const discussion_id = (disc.structured.discussion as { id: string }).id;
    await writer("post_message", { discussion_id, body: "we discussed quokkaword policies" });
    await writer("record_decision", { title: "Backoff", detail: "use narwhalword backoff" });
    await writer("record_plan", { title: "Rollout", body: "ship with axolotlword flags" });
    const task = await writer("create_task", { title: "Pangolinword task", detail: "detail" });
    const task_id = (task.structured.task as { id: string }).id;
    await writer("create_handoff", { task_id, to: "bob", context: "okapiword context here" });
    await writer("set_north_star", { project_id: "acme/app", text: "wombatword for everyone" });
    await writer("set_focus", { project_id: "acme/app", statement: "capybaraword first" });
    await writer("add_task", { project_id: "acme/app", body: "tidy lemurword", kind: "cleanup" });
    const thought = await writer("sequentialthinking", {
      thought: "consider the tapirword",
      nextThoughtNeeded: false,
      thoughtNumber: 1,
      totalThoughts: 1,
    });
    await writer("handoff_save", {
      key: "big-one",
      title: "Long talk",
      summary: "about things",
      conversation: "## User\nhello\n\n## Assistant\n" + "filler words here. ".repeat(5000) +
        "\n\n## User\nthe meerkatword is hidden deep\n",
    });
    await writer("handoff_add_comment", { key: "big-one", content: "a dingoword comment" });
    const expect: [string, string][] = [
      ["zebraword", "message"],
      ["quokkaword", "message"],
      ["narwhalword", "decision"],
      ["axolotlword", "plan"],
      ["pangolinword", "task"],
      ["okapiword", "context"],
      ["wombatword", "north_star"],
      ["capybaraword", "focus"],
      ["lemurword", "followup"],
      ["tapirword", "thought"],
      ["meerkatword", "handoff"],
      ["dingoword", "comment"],
    ];
    for (const [word, kind] of expect) {
      const found = await eventually(reader, { query: word }, (f) => kindsOf(f).includes(kind));
      assert.deepEqual(kindsOf(found), [kind], `${word} finds its ${kind}`);
    }
    // Everything folded by now: still found, and nothing pending.
    const settled = await eventually(reader, { query: "quokkaword" }, (f) => f.pending === 0);
    assert.equal(settled.pending, 0);
    assert.deepEqual(kindsOf(settled), ["message"]);

    // A deletion is never returned again: handoff (and its comment), thinking sequence.
    await writer("handoff_clear", { key: "big-one" });
    const seq = thought.structured.sequenceId as string;
    await writer("delete_thought_sequence", { sequenceId: seq, confirm: true });
    for (const word of ["meerkatword", "dingoword", "tapirword"]) {
      assert.deepEqual(kindsOf(await search(reader, { query: word })), [], `${word} is gone`);
    }
    // After the folder applied the drops too.
    await eventually(reader, { query: "zebraword" }, (f) => f.pending === 0);
    await new Promise((r) => setTimeout(r, 500));
    for (const word of ["meerkatword", "dingoword", "tapirword"]) {
      assert.deepEqual(kindsOf(await search(reader, { query: word })), [], `${word} stays gone`);
    }
    // An overwrite replaces what was found: the north star's old words are gone.
    await writer("set_north_star", { project_id: "acme/app", text: "yakword instead" });
    assert.deepEqual(kindsOf(await search(reader, { query: "wombatword" })), []);
    assert.deepEqual(kindsOf(await search(reader, { query: "yakword" })), ["north_star"]);
  } finally {
    await wc.close();
    await rc.close();
    await a.close();
    await b.close();
    await cleanup();
  }
});

Deno.test("search: a database written without the index is indexed on first start; reindex rebuilds it", async () => {
  const { path, cleanup } = await tempKvPath();
  const token = randomToken(32);
  // SEARCH_INDEX=off writes records as the previous release did: no key under the search prefix.
  const old = await spawnServer({ KV_PATH: path, AUTH_TOKEN: token, SEARCH_INDEX: "off" });
  const [w, wc] = await client(old.origin, token, "old");
  try {
    await w("create_discussion", { title: "Legacy", body: "an ibexword from before" });
    await w("record_decision", { title: "Old call", detail: "the gnuword was chosen" });
    await w("handoff_save", { key: "old", summary: "s", conversation: "## User\nelandword\n" });
  } finally {
    await wc.close();
    await old.close();
  }
  const kv = await Deno.openKv(path);
  assert.equal((await Array.fromAsync(kv.list({ prefix: ["search"] }))).length, 0);
  kv.close();

  const fresh = await spawnServer({ KV_PATH: path, AUTH_TOKEN: token, SEARCH_FOLD_MS: "100" });
  const [r, rc] = await client(fresh.origin, token, "new");
  try {
    for (
      const [word, kind] of [["ibexword", "message"], ["gnuword", "decision"], [
        "elandword",
        "handoff",
      ]]
    ) {
      const found = await eventually(r, { query: word }, (f) => kindsOf(f).includes(kind));
      assert.deepEqual(kindsOf(found), [kind], word);
    }
  } finally {
    await rc.close();
    await fresh.close();
  }

  const run = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "main.ts", "--reindex"],
    cwd: new URL("..", import.meta.url),
    env: { KV_PATH: path, NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const out = new TextDecoder().decode(run.stdout);
  assert.equal(run.code, 0, new TextDecoder().decode(run.stderr));
  assert.match(out, /search index rebuilt: 3 items, \d+ passages/);
  const again = await Deno.openKv(path);
  assert.equal((await Array.fromAsync(again.list({ prefix: ["search", "q"] }))).length, 0);
  assert.ok((await Array.fromAsync(again.list({ prefix: ["search", "seg"] }))).length > 0);
  again.close();
  await cleanup();
});
